/**
 * The Safe Transaction Builder's batch file as the builder documents it (its `BatchFile` typings:
 * version, chainId, createdAt, meta with a name, transactions with to, value and data or a contract
 * method with its input values), checked with a JSON Schema, plus its checksum recomputed the builder's
 * way (meta.checksum removed, meta.name null, keys sorted) and the call it carries.
 */
import assert from 'node:assert/strict'
import { Ajv } from 'ajv'
import { encodeFunctionData, keccak256, stringToHex, type AbiFunction, type Hex } from 'viem'

const input = {
  type: 'object',
  required: ['name', 'type'],
  properties: { internalType: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' } },
}
const batchSchema = {
  type: 'object',
  required: ['version', 'chainId', 'createdAt', 'meta', 'transactions'],
  properties: {
    version: { const: '1.0' },
    chainId: { type: 'string', pattern: '^[0-9]+$' },
    createdAt: { type: 'integer' },
    meta: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        txBuilderVersion: { type: 'string' },
        createdFromSafeAddress: { type: 'string' },
        createdFromOwnerAddress: { type: 'string' },
        checksum: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
      },
    },
    transactions: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['to', 'value'],
        properties: {
          to: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
          value: { type: 'string', pattern: '^[0-9]+$' },
          data: { type: ['string', 'null'] },
          contractMethod: {
            type: 'object',
            required: ['inputs', 'name', 'payable'],
            properties: { inputs: { type: 'array', items: input }, name: { type: 'string' }, payable: { type: 'boolean' } },
          },
          contractInputsValues: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
        },
      },
    },
  },
}

const validate = new Ajv({ allErrors: true, strict: false }).compile(batchSchema)

function serialize(json: unknown): string {
  if (Array.isArray(json)) return `[${json.map(serialize).join(',')}]`
  if (json !== null && typeof json === 'object') {
    const keys = Object.keys(json).sort()
    let out = `{${JSON.stringify(keys)}`
    for (const key of keys) out += `${serialize((json as Record<string, unknown>)[key])},`
    return `${out}}`
  }
  return JSON.stringify(json ?? null)
}

export function checkTxBuilderBatch(batch: any, expected: { chainId: number; safe: Hex; to: Hex; data: Hex; method: string }): void {
  assert.ok(validate(batch) as boolean, JSON.stringify(validate.errors))
  assert.equal(batch.chainId, String(expected.chainId))
  assert.equal(batch.meta.createdFromSafeAddress, expected.safe)
  const { checksum, ...meta } = batch.meta
  assert.equal(checksum, keccak256(stringToHex(serialize({ ...batch, meta: { ...meta, name: null } }))), 'the builder would flag the file as modified')
  assert.equal(batch.transactions.length, 1)
  const [tx] = batch.transactions
  assert.equal(tx.to, expected.to)
  assert.equal(tx.data, expected.data)
  assert.equal(tx.contractMethod.name, expected.method)
  // The method and its input values encode to the same call as the raw data.
  const method = { type: 'function', name: tx.contractMethod.name, inputs: tx.contractMethod.inputs, outputs: [], stateMutability: 'nonpayable' } as AbiFunction
  const args = method.inputs.map((i) => tx.contractInputsValues[i.name!])
  assert.equal(encodeFunctionData({ abi: [method], args } as never), expected.data)
}
