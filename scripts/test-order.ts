/**
 * The order the runner starts test files in: the longest first, then the rest by name.
 *
 * The runner's processes take files from the queue in this order, each the next when its last ends. In
 * name order the longest files could start last and hold the run's tail with a core idle; started first,
 * they overlap the many short files instead (longest-first is how one packs jobs onto a few workers). The
 * list holds the files that took longest in a fresh-clone run on two cores (2026-11-27; the ten-slowest
 * print at the end of `npm test` names them); a file missing from it, or a name that no longer exists,
 * only moves a file in the order, it never adds or drops one.
 */
export const LONGEST_FIRST = [
  'test/build/pieces.test.ts',
  'test/explorer/export-stream.test.ts',
  'test/ca/admin-cli.test.ts',
  'test/submitter/submitter.test.ts',
  'test/start/ctrl-c.test.ts',
  'test/browser/explorer-page.test.ts',
  'test/contract/admin-cli.test.ts',
  'test/contract/safe-owner.test.ts',
  'test/submitter/crash-takeover.test.ts',
  'test/sdk/live.test.ts',
  'test/browser/purchase.test.ts',
  'test/explorer/page-cache.test.ts',
  'test/checkout/webhooks-rotation.test.ts',
  'test/live/memory-budget.test.ts',
  'test/sdk/failover.test.ts',
  'test/live/resume.test.ts',
  'test/build/image.test.ts',
  'test/live/replay-flood.test.ts',
  'test/live/fanout-scale.test.ts',
  'test/checkout/restart.test.ts',
  'test/openapi/checkout.test.ts',
  'test/browser/refund.test.ts',
  'src/explorer/store/amounts.test.ts',
  'test/browser/buy-again.test.ts',
  'test/checkout/feed-truth.test.ts',
  'test/build/web-assets.test.ts',
]

/** `files` (paths relative to the repository) with the known long ones first, each file once. */
export function orderTests(files: readonly string[]): string[] {
  const rank = (file: string) => {
    const i = LONGEST_FIRST.indexOf(file)
    return i === -1 ? LONGEST_FIRST.length : i
  }
  return [...files].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
}
