/**
 * Validation of everything the admin API reads from a request (PROCESSOR.md §3): each body becomes a
 * typed value or a ProblemError naming the field. Objects are closed: an unknown field is refused
 * rather than ignored, so a misspelt `validityDay` does not silently issue a 90-day certificate.
 */
import type { Hex } from 'viem'
import { revocationReasons, type RevocationReason } from '../../db/index.js'
import type { NewMerchant } from '../../db/index.js'
import { badParam, ProblemError } from '../../../platform/http/index.js'
import { parseWebhookUrl } from '../../webhooks/index.js'

export const DEFAULT_VALIDITY_DAYS = 90
/** The CA/Browser Forum's old ceiling, which clients still enforce for TLS certificates. */
export const MAX_VALIDITY_DAYS = 825
const MAX_NAME_LENGTH = 200

export interface CertificateRequestBody {
  csr: string
  validityDays: number
}

/** `httpsOnly`: off the local chain webhooks carry payment notifications over the internet. */
export function parseNewMerchant(body: unknown, { httpsOnly }: { httpsOnly: boolean }): NewMerchant {
  const fields = closedObject(body, ['name', 'webhookUrl', 'acquirerId'])
  const name = requiredString(fields, 'name').trim()
  if (name.length === 0 || name.length > MAX_NAME_LENGTH || /\p{Cc}/u.test(name)) {
    throw badParam('name', `name must be 1..${MAX_NAME_LENGTH} characters without control characters`)
  }
  return { name, webhookUrl: parseWebhookUrl(requiredString(fields, 'webhookUrl'), { httpsOnly }), acquirerId: acquirerId(fields.acquirerId) }
}

export function parseCertificateRequest(body: unknown): CertificateRequestBody {
  const fields = closedObject(body, ['csr', 'validityDays'])
  const csr = requiredString(fields, 'csr')
  const days = fields.validityDays ?? DEFAULT_VALIDITY_DAYS
  if (!Number.isInteger(days) || (days as number) < 1 || (days as number) > MAX_VALIDITY_DAYS) {
    throw badParam('validityDays', `validityDays must be an integer 1..${MAX_VALIDITY_DAYS} (default ${DEFAULT_VALIDITY_DAYS})`)
  }
  return { csr, validityDays: days as number }
}

/** The body is optional: no body revokes with reason `unspecified`. */
export function parseRevocation(body: unknown): { reason: RevocationReason } {
  if (body === undefined) return { reason: 'unspecified' }
  const { reason = 'unspecified' } = closedObject(body, ['reason'])
  if (!revocationReasons.includes(reason as RevocationReason)) throw badParam('reason', `reason must be one of ${revocationReasons.join(', ')}`)
  return { reason: reason as RevocationReason }
}

/** A certificate serial in a path: hex, at most 20 bytes (RFC 5280); anything else names no certificate. */
export function parseSerial(value: string): string {
  if (!/^[0-9a-fA-F]{1,40}$/.test(value)) throw new ProblemError(404, `no certificate with serial "${value.slice(0, 64)}"; serials are hex`)
  return value.toLowerCase()
}

function closedObject(body: unknown, allowed: string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProblemError(400, `the body must be a JSON object with ${allowed.join(', ')}`)
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw badParam(key, `unknown field "${key}"; expected ${allowed.join(', ')}`)
  }
  return body as Record<string, unknown>
}

function requiredString(fields: Record<string, unknown>, name: string): string {
  const value = fields[name]
  if (typeof value !== 'string') throw badParam(name, `${name} is required (a string)`)
  return value
}

function acquirerId(value: unknown): Hex | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{32}$/.test(value)) throw badParam('acquirerId', 'acquirerId must be a bytes16: 0x and 32 hex digits')
  return value.toLowerCase() as Hex
}
