/**
 * The peer's API: the latest 20 settlements of a recipient (what the explorer answers at
 * /events?recipient=R&limit=20), and Ponder's own SQL-over-HTTP with live queries (@ponder/client) at /sql/*.
 */
import { db } from 'ponder:api'
import schema from 'ponder:schema'
import { Hono } from 'hono'
import { and, client, desc, eq, replaceBigInts } from 'ponder'

const app = new Hono()

app.use('/sql/*', client({ db, schema }))

app.get('/settlements/:recipient', async (c) => {
  const recipient = c.req.param('recipient').toLowerCase() as `0x${string}`
  if (!/^0x[0-9a-f]{40}$/.test(recipient)) return c.json({ error: 'recipient must be an address' }, 400)
  const rows = await db
    .select()
    .from(schema.settlement)
    .where(and(eq(schema.settlement.recipient, recipient)))
    .orderBy(desc(schema.settlement.blockNumber), desc(schema.settlement.logIndex))
    .limit(20)
  return c.json({ events: replaceBigInts(rows, (v) => String(v)) })
})

export default app
