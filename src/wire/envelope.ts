/**
 * The gateway's signed envelope (PROCESSOR.md §2): every client message is
 * `{ type, callerAddress, deadline, payload, signature: { hash, v, r, s } }`, an EIP-712 signature by
 * `callerAddress` over `GatewayMessage(type, callerAddress, deadline, payloadHash)` in the
 * `WalletGateway` domain, where `payloadHash = keccak256(utf8(JSON.stringify(payload)))`.
 * Shared by the gateway (verifying) and the SDK's wallet client (signing); browser-safe.
 */
import { keccak256, parseSignature, stringToHex, type Hex, type LocalAccount } from 'viem'
import { domainSeparator, typedDataHasher } from './typed-data-hasher.js'
import { BaseError } from './base-error.js'

export interface EnvelopeSignature {
  hash: Hex
  v: number
  r: Hex
  s: Hex
}

export interface Envelope<payload = Record<string, unknown>> {
  type: string
  callerAddress: Hex
  /** Unix seconds; the gateway accepts it within ±30 s of its clock. */
  deadline: number
  payload: payload
  signature: EnvelopeSignature
}

export const gatewayMessageTypes = {
  GatewayMessage: [
    { name: 'type', type: 'string' },
    { name: 'callerAddress', type: 'address' },
    { name: 'deadline', type: 'uint256' },
    { name: 'payloadHash', type: 'bytes32' },
  ],
} as const

export function gatewayDomain(chainId: number) {
  return { name: 'WalletGateway', version: '1', chainId } as const
}

export function payloadHash(payload: unknown): Hex {
  return keccak256(stringToHex(JSON.stringify(payload)))
}

const hashGatewayMessage = typedDataHasher(gatewayMessageTypes, 'GatewayMessage')

export function envelopeDigest(chainId: number, fields: { type: string; callerAddress: Hex; deadline: number | bigint; payload: unknown }): Hex {
  return hashGatewayMessage(domainSeparator(gatewayDomain(chainId)), {
    type: fields.type,
    callerAddress: fields.callerAddress,
    deadline: BigInt(fields.deadline),
    payloadHash: payloadHash(fields.payload),
  })
}

export interface SignEnvelopeParams<payload> {
  account: LocalAccount
  chainId: number
  type: string
  payload: payload
  /** Default: 20 s from now. */
  deadline?: number
}

export async function signEnvelope<payload>({ account, chainId, type, payload, deadline }: SignEnvelopeParams<payload>): Promise<Envelope<payload>> {
  const callerAddress = account.address.toLowerCase() as Hex
  const at = deadline ?? Math.floor(Date.now() / 1000) + 20
  const hash = envelopeDigest(chainId, { type, callerAddress, deadline: at, payload })
  const { r, s, yParity } = parseSignature(
    await signDigest(account, hash, () => ({
      domain: gatewayDomain(chainId),
      types: gatewayMessageTypes,
      primaryType: 'GatewayMessage',
      message: { type, callerAddress, deadline: BigInt(at), payloadHash: payloadHash(payload) },
    })),
  )
  return { type, callerAddress, deadline: at, payload, signature: { hash, v: 27 + yParity, r, s } }
}

type TypedDataToSign = Parameters<NonNullable<LocalAccount['signTypedData']>>[0]

/**
 * The account's signature of a typed-data digest: signing the digest itself gives the same signature
 * as signing the typed data (RFC 6979) without hashing it a second time; an account that signs no raw
 * digests signs the typed data.
 */
async function signDigest(account: LocalAccount, hash: Hex, typedData: () => TypedDataToSign): Promise<Hex> {
  if (account.sign) return account.sign({ hash })
  if (account.signTypedData) return account.signTypedData(typedData())
  throw new BaseError('the account cannot sign typed data')
}
