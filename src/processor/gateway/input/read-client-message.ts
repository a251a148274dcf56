/**
 * The one place a client message is validated (PROCESSOR.md §2), in the specified order: structure
 * (MISSING_FIELD / INVALID_FORMAT, the payload's included), deadline within ±30 s (EXPIRED_DEADLINE),
 * `v` ∈ {0, 1, 27, 28} (INVALID_SIGNATURE), the recomputed EIP-712 hash equals `signature.hash`
 * (INVALID_SIGNATURE: a tampered field or payload), recovery (INVALID_SIGNATURE), recovered ==
 * `callerAddress` (ADDRESS_MISMATCH). Everything runs in-process, no RPC: hashing with viem, recovery in
 * libsecp256k1 (recover-signer.ts).
 */
import type { Hex } from 'viem'
import { envelopeDigest, type EnvelopeSignature } from '../../../wire/index.js'
import type { ClientMessageType, ClientPayloads } from '../../../wire/index.js'
import { address, anyObject, bytes32, integer, isFields, oneOf, struct, type Fields } from './fields.js'
import { MAX_ID_FIELD_LENGTH, payloadReaders, type PayloadLimits } from './read-payload.js'
import { recoverSigner } from './recover-signer.js'
import { GatewayRefusal } from './gateway-refusal.js'

/** How far a deadline may lie from the gateway's clock, either way (PROCESSOR.md §2). */
export const DEADLINE_SKEW_SECONDS = 30
const VALID_V = new Set([0, 1, 27, 28])

export type VerifiedClientMessage = {
  [T in ClientMessageType]: {
    type: T
    /** Lower case; equal to the signer. */
    callerAddress: Hex
    deadline: number
    /** Validated, hex in lower case. */
    payload: ClientPayloads[T]
    /** The payload as sent and signed (what is hashed, and what a submission stores). */
    signedPayload: Fields
  }
}[ClientMessageType]

export interface ReadSettings extends PayloadLimits {
  chainId: number
  maxMessageBytes: number
}

export type ReadResult = { message: VerifiedClientMessage } | { refusal: GatewayRefusal; requestId?: string }

export interface MessageReader {
  /** Decodes the frame before its first await: call it while uWS's frame is valid. */
  read(frame: ArrayBuffer, isBinary: boolean, nowSeconds: number): Promise<ReadResult>
  /** The request id of a frame that is otherwise not read (rate-limited), when it carries a readable one. */
  peekRequestId(frame: ArrayBuffer, isBinary: boolean): string | undefined
}

export function createMessageReader(settings: ReadSettings): MessageReader {
  const readers = payloadReaders(settings)
  const envelope = struct({
    type: oneOf(Object.keys(readers) as ClientMessageType[]),
    callerAddress: address,
    deadline: integer(0, Number.MAX_SAFE_INTEGER),
    payload: anyObject,
    signature: struct({ hash: bytes32, v: integer(0, 255), r: bytes32, s: bytes32 }),
  })

  const parse = (body: unknown) => {
    const { type, callerAddress, deadline, payload: signedPayload, signature } = envelope(body, 'message')
    const payload = readers[type](signedPayload, 'payload')
    return { message: { type, callerAddress, deadline, payload, signedPayload } as VerifiedClientMessage, signature }
  }

  return {
    async read(frame, isBinary, now) {
      let body: unknown
      try {
        body = decode(frame, isBinary, settings.maxMessageBytes)
      } catch (error) {
        return refused(error)
      }
      const requestId = requestIdOf(body)
      try {
        const { message, signature } = parse(body)
        verify(message, signature, settings.chainId, now)
        return { message }
      } catch (error) {
        return { ...refused(error), ...(requestId === undefined ? {} : { requestId }) }
      }
    },
    peekRequestId(frame, isBinary) {
      try {
        return requestIdOf(decode(frame, isBinary, settings.maxMessageBytes))
      } catch {
        return undefined
      }
    },
  }
}

function requestIdOf(body: unknown): string | undefined {
  if (!isFields(body) || !isFields(body.payload)) return undefined
  const id = body.payload.requestId
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_FIELD_LENGTH ? id : undefined
}

function decode(frame: ArrayBuffer, isBinary: boolean, maxBytes: number): unknown {
  if (frame.byteLength > maxBytes) throw new GatewayRefusal('INVALID_FORMAT', `a message may have at most ${maxBytes} bytes; this one has ${frame.byteLength}`)
  if (isBinary) throw new GatewayRefusal('INVALID_FORMAT', 'messages are JSON text frames; binary frames are not accepted')
  try {
    return JSON.parse(Buffer.from(frame).toString('utf8'))
  } catch {
    throw new GatewayRefusal('INVALID_FORMAT', 'the message is not valid JSON')
  }
}

function verify(message: VerifiedClientMessage, signature: EnvelopeSignature, chainId: number, now: number): void {
  if (Math.abs(message.deadline - now) > DEADLINE_SKEW_SECONDS) {
    throw new GatewayRefusal('EXPIRED_DEADLINE', `deadline ${message.deadline} is more than ${DEADLINE_SKEW_SECONDS} s from the gateway's clock (${now})`)
  }
  if (!VALID_V.has(signature.v)) throw new GatewayRefusal('INVALID_SIGNATURE', `signature.v must be 0, 1, 27 or 28, got ${signature.v}`)
  const digest = envelopeDigest(chainId, { ...message, payload: message.signedPayload })
  if (digest !== signature.hash) {
    throw new GatewayRefusal('INVALID_SIGNATURE', 'signature.hash is not the EIP-712 hash of this message: a field or the payload differs from what was signed')
  }
  const signer = recoverSigner(digest, signature)
  if (!signer) throw new GatewayRefusal('INVALID_SIGNATURE', 'no signer can be recovered from the signature')
  if (signer !== message.callerAddress) throw new GatewayRefusal('ADDRESS_MISMATCH', `the message is signed by ${signer}, not by callerAddress ${message.callerAddress}`)
}

function refused(error: unknown): { refusal: GatewayRefusal } {
  if (error instanceof GatewayRefusal) return { refusal: error }
  throw error
}
