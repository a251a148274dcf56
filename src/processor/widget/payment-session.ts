/**
 * `GET /s/:chargeId/api/session` (PROCESSOR.md §5): what a wallet needs to sign a payment of the charge,
 * for the bearer of the page's ephemeral token. The token is used up by this call (one wallet, one
 * session) whatever the answer; refusals are problems: 401 for a missing, unknown, expired or used token
 * (`WWW-Authenticate: Bearer`), 404 for an unknown charge, 410 for an expired or canceled one, 409 for one
 * already paid, whatever the token (a link reused after payment must say so, not invite paying again), and
 * 409 for a charge from a payment link whose hold ended while others used the link up (issue 38 item 6: a
 * late payer must not sell the link past `maxUses`). Browser wallets call it from other origins, so CORS
 * is open (the token is the credential, never a cookie).
 */
import type { ServerResponse } from 'node:http'
import type { Hex } from 'viem'
import { hashEphemeralToken } from '../checkout/index.js'
import { chargeQueries, findChargeById, paymentLinkHasRoomFor, type ChargeRow } from '../db/index.js'
import type { Sql } from '../db/index.js'
import { sendJson, sendProblem } from '../../platform/http/index.js'
import type { PaymentSession } from '../../sdk/index.js'
import { isClosed } from './live-status.js'

export interface SessionSettings {
  chainId: number
  settlementContract: Hex
  walletGatewayUrl: string
}

export const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-max-age': '86400',
}

const BEARER = /^Bearer +(\S+)\s*$/i

export function sessionOf(charge: ChargeRow, settings: SessionSettings): PaymentSession {
  return {
    token: charge.token,
    beneficiary: charge.beneficiary,
    principal: charge.amount,
    orderReference: charge.orderReference,
    acquirerId: charge.acquirerId,
    deadline: Math.floor(charge.deadline.getTime() / 1000),
    chainId: settings.chainId,
    settlementContract: settings.settlementContract,
    walletGatewayUrl: settings.walletGatewayUrl,
  }
}

export async function answerSession(sql: Sql, settings: SessionSettings, chargeId: string, authorization: string | undefined, res: ServerResponse): Promise<void> {
  const refuse = (status: number, detail: string) =>
    sendProblem(res, status, detail, { ...corsHeaders, ...(status === 401 && { 'www-authenticate': 'Bearer realm="payment session"' }) })
  const refuseClosedOrPaid = (status: ChargeRow['status']) =>
    isClosed(status) ? refuse(410, `charge ${chargeId} is ${status}`) : refuse(409, `charge ${chargeId} is already paid (${status}): there is nothing more to pay`)
  const token = BEARER.exec(authorization ?? '')?.[1]
  if (!token) return refuse(401, 'an Authorization: Bearer <ephemeral token> header is required (the t parameter of the payment link)')
  const charge = await chargeQueries.consumeEphemeralToken(sql, chargeId, hashEphemeralToken(token))
  if (!charge) {
    const known = await findChargeById(sql, chargeId)
    if (!known) return refuse(404, `no charge ${chargeId}`)
    if (known.status !== 'awaiting-payment') return refuseClosedOrPaid(known.status)
    return refuse(401, 'the token is unknown, expired or already used: load the payment page again for a fresh payment link')
  }
  if (charge.status !== 'awaiting-payment') return refuseClosedOrPaid(charge.status)
  if (!(await paymentLinkHasRoomFor(sql, chargeId))) return refuse(409, `charge ${chargeId} came from a payment link that others used up after its hold ended: it can no longer be paid`)
  sendJson(res, 200, sessionOf(charge, settings), corsHeaders)
}
