/**
 * A Safe Transaction Builder batch file (the JSON its "Upload" accepts and its "Download" writes:
 * version "1.0", chainId, createdAt, meta, transactions with `to`, `value`, `data` and the called
 * method's inputs) with the builder's own checksum, so that the builder shows it as unmodified.
 */
import { keccak256, stringToHex, type AbiFunction, type Hex } from 'viem'

export interface BatchTransaction {
  to: Hex
  value: string
  data: Hex
  contractMethod: { inputs: { internalType: string; name: string; type: string }[]; name: string; payable: boolean }
  contractInputsValues: Record<string, string>
}

export interface TxBuilderBatch {
  version: '1.0'
  chainId: string
  createdAt: number
  meta: {
    name: string
    description: string
    txBuilderVersion: string
    createdFromSafeAddress: string
    createdFromOwnerAddress: string
    checksum: string
  }
  transactions: BatchTransaction[]
}

/** The builder version whose format this follows. */
export const TX_BUILDER_VERSION = '1.18.0'

export interface BatchCall {
  to: Hex
  value: bigint
  data: Hex
  method: AbiFunction
  args: readonly unknown[]
}

export function txBuilderBatch(params: { chainId: number; safe: Hex; name: string; description: string; calls: BatchCall[]; createdAt?: number }): TxBuilderBatch {
  const batch: TxBuilderBatch = {
    version: '1.0',
    chainId: String(params.chainId),
    createdAt: params.createdAt ?? Date.now(),
    meta: {
      name: params.name,
      description: params.description,
      txBuilderVersion: TX_BUILDER_VERSION,
      createdFromSafeAddress: params.safe,
      createdFromOwnerAddress: '',
      checksum: '',
    },
    transactions: params.calls.map(({ to, value, data, method, args }) => ({
      to,
      value: value.toString(),
      data,
      contractMethod: {
        inputs: method.inputs.map((input) => ({ internalType: input.internalType ?? input.type, name: input.name ?? '', type: input.type })),
        name: method.name,
        payable: method.stateMutability === 'payable',
      },
      contractInputsValues: Object.fromEntries(method.inputs.map((input, i) => [input.name ?? String(i), String(args[i])])),
    })),
  }
  batch.meta.checksum = txBuilderChecksum(batch)
  return batch
}

/**
 * The builder's checksum: keccak256 of a canonical serialisation (object keys sorted, each object
 * written as its key list followed by its values) of the batch with `meta.name` set to null.
 */
export function txBuilderChecksum(batch: TxBuilderBatch): Hex {
  // The builder checks a file by deleting meta.checksum and hashing the rest.
  const { checksum: _checksum, ...meta } = batch.meta
  return keccak256(stringToHex(canonical({ ...batch, meta: { ...meta, name: null } })))
}

function canonical(json: unknown): string {
  if (Array.isArray(json)) return `[${json.map(canonical).join(',')}]`
  if (typeof json === 'object' && json !== null) {
    const keys = Object.keys(json).sort()
    return `{${JSON.stringify(keys)}${keys.map((key) => `${canonical((json as Record<string, unknown>)[key])},`).join('')}}`
  }
  return JSON.stringify(json === undefined ? null : json)
}
