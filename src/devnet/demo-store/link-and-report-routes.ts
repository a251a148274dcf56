/**
 * The demo store's "Buy again" and report routes (issue 23). `GET /products/:id/buy-again` sends the
 * browser to the product's payment link on the widget, created through the merchant API the first time it
 * is asked for and reused after (one link per product while the store runs: anyone may buy again from
 * it). `GET /report.csv` streams the merchant's charges report from the merchant API (which only the
 * store, holding the client certificate, can call) to the browser as it arrives.
 */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseUnits } from 'viem'
import type { ListedToken } from '../demo-wallet/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { MerchantClient } from '../../processor/merchant-client/index.js'
import { redirect, sendHtmlPage } from '../../platform/http/index.js'
import { type Route } from '../../platform/route-server/index.js'
import { catalog, findProduct } from './catalog.js'
import { storeMessagePage } from './store-pages.js'

export interface LinkAndReportContext {
  api: MerchantClient
  token: ListedToken
  beneficiary: string
  log: Logger
}

const PRODUCT = `:productId(^(?:${catalog.map((product) => product.id).join('|')})$)`

export function linkAndReportRoutes({ api, token, beneficiary, log }: LinkAndReportContext): Route[] {
  const links = new Map<string, Promise<string>>()
  const linkOf = (productId: string) => {
    let link = links.get(productId)
    if (!link) {
      const product = findProduct(productId)!
      link = api.createPaymentLink({ amount: parseUnits(product.price, token.decimals).toString(), token: token.address, beneficiary, description: product.name }).then((created) => created.url)
      // A failure is not kept: the next press asks again.
      link.catch(() => links.delete(productId))
      links.set(productId, link)
    }
    return link
  }
  const unavailable = (error: unknown) => storeMessagePage('The checkout is not available', (error as Error).message.split('\n')[0]!)
  return [
    {
      method: 'GET',
      url: `/products/${PRODUCT}/buy-again`,
      async handle({ res, params: [productId] }) {
        try {
          redirect(res, await linkOf(productId!))
        } catch (error) {
          log.warn('payment link creation failed', { productId, error })
          sendHtmlPage(res, 502, unavailable(error))
        }
      },
    },
    {
      method: 'GET',
      url: '/report.csv',
      async handle({ res }) {
        // The first chunk tells whether the engine answered: until then the browser may still get an error page.
        const report = api.downloadChargesReport()
        let first
        try {
          first = await report.next()
        } catch (error) {
          log.warn('the charges report failed', { error })
          return sendHtmlPage(res, 502, unavailable(error))
        }
        res.writeHead(200, {
          'content-type': 'text/csv; charset=utf-8; header=present',
          'content-disposition': 'attachment; filename="demo-store-charges.csv"',
          'cache-control': 'no-store',
        })
        // Cut short upstream: the browser's download is cut short too (no final chunk), never passed off as whole.
        const chunks = async function* () {
          if (!first.done) yield first.value
          yield* report
        }
        await pipeline(Readable.from(chunks()), res).catch((error: Error) => {
          log.warn('the charges report was cut short', { error })
          res.destroy()
        })
      },
    },
  ]
}
