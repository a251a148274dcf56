import { openStore, recordJson } from './src/explorer/store/index.ts'
import { findFirstSettlement } from './src/explorer/query/find-settlement.ts'
import { TokenCache } from './src/explorer/query/token-cache.ts'
const store = openStore({ path: '.data/bench/store-1000000-s1-6f183a88' })
const tokens = new TokenCache(store)
const tx: any[] = [], refs: any[] = []
let i = 0
for (const key of store.events.getKeys({})) {
  if (i++ % 15000 !== 0) continue
  const json = JSON.parse(recordJson(key as Buffer, store.events.getBinaryFast(key as Buffer)!, tokens).toString())
  tx.push(json.txHash); refs.push(json.orderReference)
  if (tx.length === 64) break
}
console.log(tx[0], refs[0])
for (const [name, field, values] of [['txHash', 'txHash', tx], ['orderReference', 'orderReference', refs], ['txHash', 'txHash', tx], ['orderReference', 'orderReference', refs]] as const) {
  const n = 200_000
  const c = process.cpuUsage(); const t = performance.now()
  let bytes = 0
  for (let k = 0; k < n; k++) bytes += findFirstSettlement(store, tokens, field as any, values[k & 63])!.length
  const u = process.cpuUsage(c)
  console.log(name, ((performance.now() - t) * 1000 / n).toFixed(2), 'µs wall', ((u.user + u.system) / n).toFixed(2), 'µs cpu', bytes / n)
}
