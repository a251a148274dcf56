/**
 * QUERY_INLINE=none: every page and lookup the caches do not answer runs in the query pool, and the
 * server thread only parses and writes. Over HTTP the answers are those of the default explorer (same
 * store, queries on the server thread), page after page, and a missing settlement is still a 404.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { seededAddress, useSeededExplorer, type SeededSettlement } from '../live/seeded-explorer.js'

const settlements: SeededSettlement[] = Array.from({ length: 600 }, (_, i) => ({
  token: seededAddress(0x70, i % 3),
  payer: seededAddress(0x9a, i % 40),
  recipient: seededAddress(0x4e, i % 7),
}))
const pooled = useSeededExplorer({ settlements, env: { QUERY_WORKERS: '1', QUERY_INLINE: 'none' } })
const inline = useSeededExplorer({ settlements, env: { QUERY_WORKERS: '1' } })

async function get(base: string, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}${path}`)
  return { status: response.status, body: await response.text() }
}

/** Every page of a filter, following nextCursor. */
async function allPages(base: string, query: string): Promise<string[]> {
  const pages: string[] = []
  let cursor: string | null = null
  do {
    const { status, body } = await get(base, `/events?${query}&limit=11${cursor ? `&cursor=${cursor}` : ''}`)
    assert.equal(status, 200, body)
    pages.push(body)
    cursor = (JSON.parse(body) as { nextCursor: string | null }).nextCursor
  } while (cursor)
  return pages
}

describe('QUERY_INLINE=none', () => {
  test('pages of single-field filters and unfiltered pages equal the server thread\'s, every page', async () => {
    for (const query of [`recipient=${seededAddress(0x4e, 3)}`, `payer=${seededAddress(0x9a, 5)}`, `token=${seededAddress(0x70, 1)}&order=asc`, 'order=desc']) {
      const mine = await allPages(pooled.explorer.url, query)
      assert.ok(mine.length > 1, query)
      assert.deepEqual(mine, await allPages(inline.explorer.url, query), query)
    }
  })

  test('lookups answer from the pool; a missing one is still 404 problem+json', async () => {
    const [first] = JSON.parse((await get(inline.explorer.url, '/events?limit=1')).body).events as { txHash: string }[]
    const found = await get(pooled.explorer.url, `/events/${first!.txHash}`)
    assert.equal(found.status, 200)
    assert.equal(found.body, (await get(inline.explorer.url, `/events/${first!.txHash}`)).body)
    const missing = await fetch(`${pooled.explorer.url}/events/0x${'ab'.repeat(32)}`)
    assert.equal(missing.status, 404)
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/)
  })
})
