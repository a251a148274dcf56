/**
 * The `npm start` stack for the soak (see scripts/start.ts): the devnet with 1 s blocks, an embedded
 * PostgreSQL, the data service and the certificate authority in this process — and, as child processes
 * that the soak kills and restarts, the explorer (`scripts/explorer.ts`), the wallet gateway
 * (`scripts/gateway.ts` with SUBMITTER=off) and the broadcast submitter (`scripts/submitter.ts`); the
 * checkout engine (CONFIRMATION_BLOCKS 2, its node behind a relay that lags: `lagging-node.ts`) and the
 * widget run in this process.
 * Everything listens on free ports and keeps its data under one directory, so a soak never touches a
 * running `npm start` or another test.
 */
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { findFreePort } from '../../src/platform/net/index.js'
import { startDevnet, type Devnet } from '../../src/devnet/local-devnet/index.js'
import { startCa, type RunningCa } from '../../src/processor/ca/index.js'
import { caOptionsFromEnv } from '../../src/config/index.js'
import { dataServiceOptionsFromEnv } from '../../src/config/index.js'
import { startDataService, type RunningDataService } from '../../src/processor/data-service/index.js'
import { openDatabase, type Database } from '../../src/processor/db/index.js'
import { createLogger } from '../../src/platform/observability/index.js'
import { checkoutOptionsFromEnv, widgetOptionsFromEnv } from '../../src/config/index.js'
import { startCheckout, type RunningCheckout } from '../../src/processor/checkout/index.js'
import { startWidget, type RunningWidget } from '../../src/processor/widget/index.js'
import { startLaggingNode, type LaggingNode } from './lagging-node.js'
import { ManagedProcess } from './managed-process.js'

export interface SoakStack {
  dir: string
  devnet: Devnet
  db: Database
  dataService: RunningDataService
  ca: RunningCa
  explorer: ManagedProcess
  explorerUrl: string
  gateway: ManagedProcess
  gatewayWsUrl: string
  submitter: ManagedProcess
  laggingNode: LaggingNode
  checkout: RunningCheckout
  widget: RunningWidget
  stop(): Promise<void>
}

/** The submitter's log line for a transaction it re-signed with higher fees after SUBMITTER_STUCK_TIMEOUT_MS. */
export const STUCK_REPLACED = 'replacing a stuck transaction'

const ok = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200

export async function startStack(dir: string): Promise<SoakStack> {
  mkdirSync(dir, { recursive: true })
  const stops: (() => Promise<void>)[] = []
  const stop = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => {})
  }
  try {
    const log = createLogger('warn', { service: 'soak' })
    const deploymentPath = join(dir, 'deployment.json')
    const devnet = await startDevnet({ host: '127.0.0.1', port: await findFreePort(), blockTime: 1, payers: 20, deploymentPath })
    stops.push(devnet.stop)
    // The server runs as the `postgres` user when this runs as root: its directory sits directly in the temp dir.
    const db = await openDatabase({ embeddedDir: join(tmpdir(), `soak-pg-${randomBytes(6).toString('hex')}`), persistent: false }, log)
    stops.push(db.close)

    const chainEnv = { CHAIN_ID: String(devnet.deployment.chainId), DEPLOYMENT_FILE: deploymentPath }
    const dataService = await startDataService(dataServiceOptionsFromEnv({ ...chainEnv, DATA_SERVICE_PORT: '0', LOG_LEVEL: 'warn' }, devnet.deployment), { log })
    stops.push(dataService.stop)
    const ca = await startCa(caOptionsFromEnv({ ...chainEnv, CA_PORT: '0', CA_DATA_DIR: join(dir, 'ca'), LOG_LEVEL: 'warn' }), { db, log })
    stops.push(ca.stop)

    const explorerPort = await findFreePort()
    const explorerUrl = `http://127.0.0.1:${explorerPort}`
    const explorer = new ManagedProcess({
      name: 'explorer',
      script: 'scripts/explorer.ts',
      env: { ...chainEnv, DATA_DIR: join(dir, 'explorer'), EXPLORER_PORT: String(explorerPort), LOG_LEVEL: 'warn' },
      logDir: dir,
      isUp: () => ok(`${explorerUrl}/health`),
    })
    await explorer.start()
    stops.push(() => explorer.stop())

    const gatewayPort = await findFreePort()
    const widgetPort = await findFreePort()
    const processorEnv = { ...chainEnv, DATABASE_URL: db.url, EXPLORER_URL: explorerUrl, GATEWAY_PORT: String(gatewayPort), WIDGET_PORT: String(widgetPort), LOG_LEVEL: 'warn' }
    const gateway = new ManagedProcess({
      name: 'gateway',
      script: 'scripts/gateway.ts',
      env: { ...processorEnv, SUBMITTER: 'off', GATEWAY_PORT: String(gatewayPort) },
      logDir: dir,
      isUp: () => ok(`http://127.0.0.1:${gatewayPort}/health`),
    })
    await gateway.start()
    stops.push(() => gateway.stop())

    const submitter = new ManagedProcess({
      name: 'submitter',
      script: 'scripts/submitter.ts',
      // info: the line that says it holds the relayer lock is how the soak knows it is up. Junk permits
      // fail after 8 waits (about 25 s) instead of 20 (about 6 minutes), so the drain sees them end.
      env: { ...processorEnv, LOG_LEVEL: 'info', SUBMITTER_MAX_DEFERRALS: '8' },
      logDir: dir,
      isUp: async (p) => p.logged('"msg":"active:'),
      count: [STUCK_REPLACED],
    })
    await submitter.start()
    stops.push(() => submitter.stop())

    const laggingNode = await startLaggingNode({ rpcUrl: devnet.deployment.rpcUrl, meanGapMs: 20_000, hideBlocks: 4, blockMs: 1_000 })
    stops.push(laggingNode.stop)
    const checkoutEnv = { ...processorEnv, RPC_URL: laggingNode.url, CHECKOUT_PORT: '0', CA_DATA_DIR: join(dir, 'ca'), CONFIRMATION_BLOCKS: '2' }
    const checkout = await startCheckout(checkoutOptionsFromEnv(checkoutEnv, devnet.deployment), { db, log })
    stops.push(checkout.stop)
    const widget = await startWidget(widgetOptionsFromEnv(processorEnv, devnet.deployment), { db, log })
    stops.push(widget.stop)

    return { dir, devnet, db, dataService, ca, explorer, explorerUrl, gateway, gatewayWsUrl: `ws://127.0.0.1:${gatewayPort}/ws`, submitter, laggingNode, checkout, widget, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
