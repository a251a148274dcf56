/**
 * Where webhooks may go. A merchant chooses its webhook URL, so off the local chain it must not be able
 * to aim the processor at the processor's own network: loopback, private, link-local (cloud metadata
 * included), shared and reserved addresses are refused. The check is made where the connection is made:
 * the dispatcher's DNS lookup vets every address a host name resolves to, and the socket connects to
 * exactly those (pinned), so a name that resolves differently a moment later (DNS rebinding) gains
 * nothing. An address written into the URL is vetted before the request, since it is never looked up.
 * What a webhook URL may be is checked in one place for the CA's merchant creation and the merchant API's
 * URL change (`parseWebhookUrl`).
 */
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'
import { Agent } from 'undici'
import { BaseError } from '../../errors/index.js'
import { badParam } from '../../platform/http/index.js'

/** A webhook URL that leads into the processor's network; never retryable by itself. */
export class InternalTargetError extends BaseError {
  override name = 'InternalTargetError'
  constructor(host: string) {
    super('the webhook URL leads to a loopback, private or link-local address, which webhooks may not reach', { details: { host } })
  }
}

const internal = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) internal.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) internal.addSubnet(network, prefix, 'ipv6')

export const isInternalAddress = (address: string): boolean => internal.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')

/** Throws InternalTargetError when `url`'s host is an internal address written as such. */
export function refuseInternalLiteral(url: string): void {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  if (isIP(host) && isInternalAddress(host)) throw new InternalTargetError(host)
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

function vettedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    if (addresses.length === 0 || addresses.some((a) => isInternalAddress(a.address))) return callback(new InternalTargetError(hostname), [])
    if (options.all) return callback(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}

/** The connection pool webhooks are sent through: with the lookup that refuses internal addresses unless they are allowed. */
export const webhookDispatcher = (allowInternal: boolean): Agent => new Agent(allowInternal ? {} : { connect: { lookup: vettedLookup } })

export const MAX_WEBHOOK_URL_LENGTH = 2048

/**
 * A webhook URL as a merchant gives it: http(s) (https only off the local chain: webhooks carry payment
 * notifications over the internet), no credentials, at most MAX_WEBHOOK_URL_LENGTH characters, and with
 * `refuseInternal` no internal address written in it (a name is vetted when it is looked up, at delivery).
 * Throws a 400 problem naming `webhookUrl`.
 */
export function parseWebhookUrl(value: string, { httpsOnly, refuseInternal = false }: { httpsOnly: boolean; refuseInternal?: boolean }): string {
  let url: URL | undefined
  try {
    url = value.length <= MAX_WEBHOOK_URL_LENGTH ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  const schemes = httpsOnly ? ['https:'] : ['https:', 'http:']
  if (!url || !schemes.includes(url.protocol) || url.username || url.password) {
    throw badParam('webhookUrl', `webhookUrl must be an ${schemes.map((s) => s.slice(0, -1)).join(' or ')} URL without credentials, at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  }
  if (refuseInternal) {
    try {
      refuseInternalLiteral(value)
    } catch (error) {
      if (!(error instanceof InternalTargetError)) throw error
      throw badParam('webhookUrl', `webhookUrl ${error.message.replace(/^the webhook URL /, '')}`)
    }
  }
  return value
}
