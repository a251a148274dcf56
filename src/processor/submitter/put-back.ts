/**
 * A submission validation did not pass: a refused one fails; an undecidable one (permit nonce ahead, node
 * not answering) waits, twice as long each time, and fails after `maxDeferrals` waits in a row without
 * the owner's token nonce moving — permits signed for free cannot keep the submitter busy re-checking them.
 */
import type { SubmitterSettings } from '../../config/index.js'
import { deferSubmission, markFailed, type SubmissionRow } from '../db/index.js'
import type { SubmissionLoopParts } from './recover-submission-loop.js'
import type { Verdict } from './validate-submission.js'

type FailedVerdict = Extract<Verdict, { ok: false }>

export async function refuseOrPutBack({ db, settings }: Pick<SubmissionLoopParts, 'db' | 'settings'>, row: SubmissionRow, verdict: FailedVerdict): Promise<void> {
  if (!verdict.defer) return void (await markFailed(db.pool, row.payloadId, verdict.category, verdict.reason))
  // The count restarts whenever the owner's token nonce has moved: a payment waiting behind others
  // that go through is making progress, a permit nobody will ever reach is not.
  const waits = verdict.tokenNonce?.toString() === (row.deferredAtNonce ?? undefined) ? row.deferCount : 0
  if (waits >= settings.maxDeferrals) await markFailed(db.pool, row.payloadId, verdict.category, `${verdict.reason}, still after ${waits} waits`)
  else await deferSubmission(db.pool, row.payloadId, { delayMs: deferralWait(settings, waits), deferCount: waits + 1, atNonce: verdict.tokenNonce })
}

/** The wait after the `deferrals`-th deferral: doubling from `deferMs`, at most `deferMaxMs`. */
function deferralWait(settings: SubmitterSettings, deferrals: number): number {
  return Math.min(settings.deferMs * 2 ** Math.min(deferrals, 30), settings.deferMaxMs)
}
