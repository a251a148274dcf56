/**
 * The merchant's reports (issue 23), under `/api/v1` behind the merchant authentication:
 * `GET /reports/charges.csv` streams every charge the filters of `GET /api/v1/charges` match, newest
 * first, as CSV. Memory stays constant whatever the count: the rows are read in keyset pages of
 * `REPORT_PAGE_ROWS` (the listing's own query, so the CSV is the API's pages laid end to end) and each page
 * is read only when the client has taken the previous one (a pull stream with a one-chunk buffer).
 * Bad filters are refused with a problem before anything is sent, and so is a database that fails on the
 * first page; a failure after the first page cuts the response short (no final chunk), which a client
 * sees as an incomplete transfer, never as a complete report.
 */
import { Readable } from 'node:stream'
import type { FastifyPluginAsync } from 'fastify'
import type { Hex } from 'viem'
import { renderCharge, type ChargeJson } from '../../charges/index.js'
import { listCharges, type ChargeFilter, type ChargeRow, type Database, type Merchant } from '../../db/index.js'
import { chargeFilterOf, type ChargeFilterQuery } from './charge-filter.js'
import type { ChargeTerms } from './charge-terms.js'
import { csvHeader, csvRow, decimalAmount, type CsvColumn } from './csv.js'
import { chargeReportSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'

export const REPORT_PAGE_ROWS = 500

export interface ReportRoutesOptions {
  db: Database
  terms: ChargeTerms
  widgetBaseUrl: string
}

type ChargeLine = ChargeJson & { decimals: number | undefined }

const amount = (name: keyof ChargeJson & ('amount' | 'fees' | 'totalToPay' | 'amountRefunded')): CsvColumn<ChargeLine>[] => [
  [name, (c) => c[name]],
  [`${name}Decimal`, (c) => decimalAmount(c[name], c.decimals)],
]

/** The columns of charges.csv: the charge JSON flattened, its amounts also with the decimal point. */
export const chargeColumns: readonly CsvColumn<ChargeLine>[] = [
  ['id', (c) => c.id],
  ['status', (c) => c.status],
  ['createdAt', (c) => c.createdAt],
  ['orderId', (c) => c.orderId],
  ['paymentLinkId', (c) => c.paymentLinkId],
  ['token', (c) => c.token],
  ['currency', (c) => c.currency],
  ['decimals', (c) => c.decimals],
  ['beneficiary', (c) => c.beneficiary],
  ...amount('amount'),
  ...amount('fees'),
  ...amount('totalToPay'),
  ...amount('amountRefunded'),
  ['orderReference', (c) => c.orderReference],
  ['acquirerId', (c) => c.acquirerId],
  ['deadline', (c) => c.deadline],
  ['settlementTxHash', (c) => c.settlement?.txHash],
  ['settlementBlockNumber', (c) => c.settlement?.blockNumber],
  ['settlementLogIndex', (c) => c.settlement?.logIndex],
  ['confirmations', (c) => c.settlement?.confirmations],
]

export const reportRoutes: FastifyPluginAsync<ReportRoutesOptions> = async (api, { db, terms, widgetBaseUrl }) => {
  api.setValidatorCompiler(strictValidatorCompiler)

  api.get<{ Querystring: ChargeFilterQuery }>('/reports/charges.csv', { schema: chargeReportSchema }, async (request, reply) => {
    const line = (row: ChargeRow) => csvRow(chargeColumns, { ...renderCharge(row, widgetBaseUrl), decimals: terms.token(row.token.toLowerCase() as Hex)?.decimals })
    const pages = await keysetPages(db, request.merchant, chargeFilterOf(request.query))
    return reply
      .type('text/csv; charset=utf-8; header=present')
      .header('content-disposition', 'attachment; filename="charges.csv"')
      .header('cache-control', 'no-store')
      .send(Readable.from(csvChunks(csvHeader(chargeColumns), pages, line), { objectMode: true, highWaterMark: 1 }))
  })
}

/** The pages of the filtered listing, the first already read (so that its failure is still a problem answer). */
async function keysetPages(db: Database, merchant: Merchant, filter: ChargeFilter): Promise<AsyncGenerator<ChargeRow[]>> {
  const read = (beforeSeq?: string) => listCharges(db.pool, merchant.id, { ...filter, beforeSeq, limit: REPORT_PAGE_ROWS })
  const first = await read()
  return (async function* () {
    for (let page = first; ; page = await read(page.at(-1)!.seq)) {
      if (page.length > 0) yield page
      if (page.length < REPORT_PAGE_ROWS) return
    }
  })()
}

async function* csvChunks<T>(header: string, pages: AsyncGenerator<T[]>, line: (row: T) => string): AsyncGenerator<string> {
  yield header
  for await (const page of pages) yield page.map(line).join('')
}
