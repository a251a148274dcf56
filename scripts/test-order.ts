/**
 * The order the runner starts test files in: the longest first, then the rest by name.
 *
 * The runner's processes take files from the queue in this order, each the next when its last ends. In name order
 * the longest files could start last and hold the run's tail with one core idle; started first, they
 * overlap the many short files instead (longest-first is how one packs jobs onto a few workers). The
 * list holds the files that took longest in fresh-clone runs on two cores (the ten-slowest print at the
 * end of `npm test` names them); a file missing from it, or a name that no longer exists, only moves a
 * file in the order, it never adds or drops one.
 */
export const LONGEST_FIRST = [
  'test/contract/admin-cli.test.ts',
  'test/contract/safe-owner.test.ts',
  'test/submitter/submitter.test.ts',
  'test/submitter/crash-takeover.test.ts',
  'test/ca/admin-cli.test.ts',
  'test/browser/explorer-page.test.ts',
  'test/sdk/live.test.ts',
  'test/build/pieces.test.ts',
  'test/submitter/runway.test.ts',
  'test/sdk/failover.test.ts',
  'test/openapi/checkout.test.ts',
  'test/checkout/webhooks-rotation.test.ts',
  'test/explorer/export-stream.test.ts',
  'test/explorer/page-cache.test.ts',
  'test/browser/purchase.test.ts',
  'test/live/sse.test.ts',
  'test/live/memory-budget.test.ts',
  'test/checkout/restart.test.ts',
  'test/start/ctrl-c.test.ts',
  'test/live/replay-flood.test.ts',
  'test/live/resume.test.ts',
  'test/explorer/crash-restart.test.ts',
  'test/ca/admin-api.test.ts',
  'test/browser/refund.test.ts',
  'test/gateway/pushes.test.ts',
  'test/live/backpressure.test.ts',
]

/** `files` (paths relative to the repository) with the known long ones first, each file once. */
export function orderTests(files: readonly string[]): string[] {
  const rank = (file: string) => {
    const i = LONGEST_FIRST.indexOf(file)
    return i === -1 ? LONGEST_FIRST.length : i
  }
  return [...files].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
}
