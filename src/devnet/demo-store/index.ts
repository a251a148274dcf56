/**
 * The demo store (PROCESSOR.md §6): a small shop that buys through the merchant API with the demo
 * merchant's client certificate, sends the payer to the checkout widget, and marks an order paid on a
 * verified `charge.settled` webhook; and the set-up of that demo merchant for `npm start`.
 */
export { startDemoStore, type DemoStoreServices, type RunningDemoStore } from './start-demo-store.js'
export { setUpDemoMerchant, type DemoMerchant, type SetUpDemoMerchantParams } from './set-up-demo-merchant.js'
export type { Order, OrderStatus } from './order-book.js'
export { readClientCredentials } from './merchant-files.js'
