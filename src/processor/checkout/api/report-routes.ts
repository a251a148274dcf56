/**
 * The merchant's reports (issue 23), under `/api/v1` behind the merchant authentication:
 * `GET /reports/charges.csv` streams every charge the filters of `GET /api/v1/charges` match, newest
 * first, as CSV; `GET /reports/refunds.csv` every refund (filters: `refundStatus`, `from`, `to` on the
 * refund's creation, and the charge's `beneficiary`, `chargeId`, `orderId`). Memory stays constant whatever the count: the rows are read in keyset pages of
 * `REPORT_PAGE_ROWS` (the listing's own query, so the CSV is the API's pages laid end to end), the next
 * page while the current one is written, and no further until the client has taken it (a pull stream
 * with a one-chunk buffer).
 * Bad filters are refused with a problem before anything is sent, and so is a database that fails on the
 * first page; a failure after the first page cuts the response short (no final chunk), which a client
 * sees as an incomplete transfer, never as a complete report.
 */
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { Hex } from 'viem'
import { renderCharge, renderRefund, type ChargeJson, type RefundJson } from '../../charges/index.js'
import { listCharges, listRefunds, type ChargeRow, type Database, type RefundRow } from '../../db/index.js'
import { chargeFilterOf, refundFilterOf, type ChargeFilterQuery, type RefundFilterQuery } from './charge-filter.js'
import type { ChargeTerms } from './charge-terms.js'
import { csvHeader, csvRow, decimalAmount, type CsvColumn } from './csv.js'
import { chargeReportSchema, refundReportSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'

export const REPORT_PAGE_ROWS = 500

export interface ReportRoutesOptions {
  db: Database
  terms: ChargeTerms
  widgetBaseUrl: string
}

type ChargeLine = ChargeJson & { decimals: number | undefined }
type RefundLine = RefundJson & { decimals: number | undefined }
type Cell = ReturnType<CsvColumn<unknown>[1]>

/** Fields of the JSON copied as they are, each its own column. */
const fieldColumns = <T>(...names: (keyof T & string)[]): CsvColumn<T>[] => names.map((name) => [name, (row: T) => row[name] as Cell])

/** Amounts twice: in the token's smallest units, and with the decimal point. */
const amountColumns = <T extends { decimals: number | undefined }>(...names: (keyof T & string)[]): CsvColumn<T>[] =>
  names.flatMap((name): CsvColumn<T>[] => [
    [name, (row) => row[name] as string],
    [`${name}Decimal`, (row) => decimalAmount(row[name] as string, row.decimals)],
  ])

/** A payable's settlement, flattened; empty while there is none. */
const settlementColumns = <T extends { settlement: ChargeJson['settlement'] }>(): CsvColumn<T>[] => [
  ['settlementTxHash', (row) => row.settlement?.txHash],
  ['settlementBlockNumber', (row) => row.settlement?.blockNumber],
  ['settlementLogIndex', (row) => row.settlement?.logIndex],
  ['confirmations', (row) => row.settlement?.confirmations],
]

/** The columns of charges.csv: the charge JSON flattened, its amounts also with the decimal point. */
export const chargeColumns: readonly CsvColumn<ChargeLine>[] = [
  ...fieldColumns<ChargeLine>('id', 'status', 'createdAt', 'orderId', 'paymentLinkId', 'token', 'currency', 'decimals', 'beneficiary'),
  ...amountColumns<ChargeLine>('amount', 'fees', 'totalToPay', 'amountRefunded'),
  ...fieldColumns<ChargeLine>('orderReference', 'acquirerId', 'deadline'),
  ...settlementColumns<ChargeLine>(),
]

/** The columns of refunds.csv: the refund JSON flattened, its amounts also with the decimal point. */
export const refundColumns: readonly CsvColumn<RefundLine>[] = [
  ...fieldColumns<RefundLine>('id', 'status', 'createdAt', 'chargeId', 'orderId', 'token', 'currency', 'decimals', 'payer', 'recipient'),
  ...amountColumns<RefundLine>('amount', 'fees', 'totalToPay'),
  ...fieldColumns<RefundLine>('reason', 'orderReference', 'deadline'),
  ...settlementColumns<RefundLine>(),
]

export const reportRoutes: FastifyPluginAsync<ReportRoutesOptions> = async (api, { db, terms, widgetBaseUrl }) => {
  api.setValidatorCompiler(strictValidatorCompiler)

  const decimalsOf = (token: Hex) => terms.token(token.toLowerCase() as Hex)?.decimals
  const send = (reply: FastifyReply, filename: string, chunks: AsyncGenerator<string>) =>
    reply
      .type('text/csv; charset=utf-8; header=present')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .header('cache-control', 'no-store')
      .send(Readable.from(chunks, { objectMode: true, highWaterMark: 1 }))

  api.get<{ Querystring: ChargeFilterQuery }>('/reports/charges.csv', { schema: chargeReportSchema }, async (request, reply) => {
    const filter = chargeFilterOf(request.query)
    const line = (row: ChargeRow) => csvRow(chargeColumns, { ...renderCharge(row, widgetBaseUrl), decimals: decimalsOf(row.token) })
    const pages = await keysetPages((beforeSeq) => listCharges(db.pool, request.merchant.id, { ...filter, beforeSeq, limit: REPORT_PAGE_ROWS }))
    return send(reply, 'charges.csv', csvChunks(csvHeader(chargeColumns), pages, line))
  })

  api.get<{ Querystring: RefundFilterQuery }>('/reports/refunds.csv', { schema: refundReportSchema }, async (request, reply) => {
    const filter = refundFilterOf(request.query)
    const line = (row: RefundRow) => csvRow(refundColumns, { ...renderRefund(row, widgetBaseUrl), decimals: decimalsOf(row.token) })
    const pages = await keysetPages((beforeSeq) => listRefunds(db.pool, request.merchant.id, { ...filter, beforeSeq, limit: REPORT_PAGE_ROWS }))
    return send(reply, 'refunds.csv', csvChunks(csvHeader(refundColumns), pages, line))
  })
}

/**
 * The pages of a filtered listing, the first already read (so that its failure is still a problem
 * answer). The next page is read while the current one is written: two pages in memory at most.
 */
async function keysetPages<T extends { seq: string }>(read: (beforeSeq?: string) => Promise<T[]>): Promise<AsyncGenerator<T[]>> {
  const first = await read()
  return (async function* () {
    for (let page = first; ; ) {
      const next = page.length < REPORT_PAGE_ROWS ? undefined : read(page.at(-1)!.seq)
      // A client that goes away stops the generator while `next` may still fail: that failure is nobody's to report.
      next?.catch(() => {})
      if (page.length > 0) yield page
      if (!next) return
      page = await next
    }
  })()
}

async function* csvChunks<T>(header: string, pages: AsyncGenerator<T[]>, line: (row: T) => string): AsyncGenerator<string> {
  yield header
  for await (const page of pages) yield page.map(line).join('')
}
