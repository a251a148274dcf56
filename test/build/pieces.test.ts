/**
 * Every other piece compiled, run by the image's command (`scripts/image-steps.sh start <piece>`) with
 * production packages only, against one anvil chain and one PostgreSQL that no piece has touched yet:
 * the first to start applies the migrations from `dist/migrations`; the CA, data service and gateway pass
 * the image's HEALTHCHECK pointed at them (HEALTHCHECK_URL); the checkout engine answers over mutual TLS
 * and settles a charge paid on the chain, through the compiled explorer's feed, after the image's 12
 * confirmations; the widget serves that charge's payment page; a standby submitter starts; each one
 * stops with exit code 0 on SIGTERM. Then the explorer again on two server threads, whose second thread
 * is a file of its own in the runtime tree.
 */
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { Agent, fetch } from 'undici'
import { createTestClient, http } from 'viem'
import { CaClient, generateMerchantCredentials, readLocalAdminToken } from '../../src/processor/ca/index.js'
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/processor/db/embedded-postgres.js'
import { testDatabaseDir } from '../../src/devnet/test-database/index.js'
import { freshGet, waitFor, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { exited, freePort, prepareImageApp, root, watchOutput, type ImageApp } from './image-app.js'

let chain: LocalChain
let postgres: EmbeddedDatabase
let app: ImageApp
let dataDir: string
const running: ChildProcess[] = []
/** Seven processes start one after another on a machine that may be busy: waits are generous. */
const PATIENCE_MS = 90_000

before(async () => {
  chain = await startLocalChain()
  postgres = await startEmbeddedPostgres({ dataDir: testDatabaseDir() })
  app = prepareImageApp()
  dataDir = mkdtempSync(join(tmpdir(), 'image-pieces-'))
})

after(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  app?.remove()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  await postgres?.stop()
  await chain?.stop()
})

function start(piece: string, env: Record<string, string>) {
  const child = app.start(env, piece)
  running.push(child)
  return { child, output: watchOutput(child) }
}

async function stop({ child, output }: ReturnType<typeof start>, piece: string) {
  child.kill('SIGTERM')
  assert.deepEqual(await exited(child), { code: 0, signal: null }, `${piece}:\n${output.lines.join('\n')}`)
  // Its output may still be arriving after the exit.
  const said = await Promise.race([output.waitFor(/^stopped$/), new Promise<undefined>((resolve) => setTimeout(resolve, 5000))])
  assert.equal(said, 'stopped', `${piece} says it stopped:\n${output.lines.join('\n')}`)
}

test('ca, explorer, data service, gateway, submitter, checkout and widget run from dist/ and stop on SIGTERM', async () => {
  const ports = { ca: await freePort(), explorer: await freePort(), data: await freePort(), gateway: await freePort(), checkout: await freePort(), widget: await freePort() }
  const chainEnv = {
    CHAIN_ID: '31337',
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    START_BLOCK: String(chain.deployment.startBlock),
    DATABASE_URL: postgres.url,
    POLL_INTERVAL_MS: '100',
  }
  // Waits for the piece's own answer, then runs the image's health check once: each run of it is a
  // process of its own (~0.5 CPU-s), too dear to poll with.
  // A piece that ended, or never answered, is named with what it printed.
  const healthy = async (piece: string, url: string, { child, output }: ReturnType<typeof start>) => {
    const answers = () => {
      if (child.exitCode !== null) throw new Error(`${piece} ended before it answered ${url}`)
      return fetch(url).then((r) => r.ok, () => false)
    }
    await waitFor(`${piece} to answer ${url}`, answers, PATIENCE_MS).catch((error: Error) => {
      throw new Error(`${error.message} (exit code ${child.exitCode}); its output:\n${output.lines.join('\n')}`)
    })
    assert.equal(app.healthcheck({ HEALTHCHECK_URL: url }), 0, `${piece} fails the image health check`)
  }

  const caDir = join(dataDir, 'ca')
  const ca = start('ca', { ...chainEnv, CA_PORT: String(ports.ca), CA_DATA_DIR: caDir })
  await healthy('ca', `http://127.0.0.1:${ports.ca}/health`, ca)
  const { Client } = await import('pg')
  const db = new Client({ connectionString: postgres.url })
  await db.connect()
  const applied = (await db.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY id')).rows.map((row) => row.name)
  await db.end()
  assert.deepEqual(applied, readdirSync(join(root, 'src/processor/db/migrations')).map((file) => file.replace(/\.sql$/, '')).sort())

  const explorerUrl = `http://127.0.0.1:${ports.explorer}`
  const explorer = start('explorer', { ...chainEnv, DATA_DIR: join(dataDir, 'explorer'), EXPLORER_PORT: String(ports.explorer) })
  await healthy('explorer', `${explorerUrl}/health`, explorer)
  const dataService = start('data-service', { ...chainEnv, DATA_SERVICE_PORT: String(ports.data), EXPLORER_URL: explorerUrl })
  await healthy('data-service', `http://127.0.0.1:${ports.data}/health`, dataService)
  const gateway = start('gateway', { ...chainEnv, GATEWAY_PORT: String(ports.gateway), EXPLORER_URL: explorerUrl, RELAYER_PRIVATE_KEY: chain.deployment.relayerKey! })
  await healthy('gateway', `http://127.0.0.1:${ports.gateway}/health`, gateway)
  await gateway.output.waitFor(/active: holding the relayer lock/)
  const submitter = start('submitter', { ...chainEnv, RELAYER_PRIVATE_KEY: chain.deployment.relayerKey! })
  await submitter.output.waitFor(/submitter started/)

  const checkout = start('checkout', {
    ...chainEnv,
    CHECKOUT_PORT: String(ports.checkout),
    CA_DATA_DIR: caDir,
    EXPLORER_URL: explorerUrl,
    WEBHOOK_DATA_DIR: join(dataDir, 'webhooks'),
  })
  await checkout.output.waitFor(/checkout engine listening/)
  const widgetUrl = `http://127.0.0.1:${ports.widget}`
  const widget = start('widget', { ...chainEnv, WIDGET_PORT: String(ports.widget) })
  await healthy('widget', `${widgetUrl}/health`, widget)
  const caClient = new CaClient({ url: `http://127.0.0.1:${ports.ca}`, token: readLocalAdminToken(caDir)! })
  const merchant = await caClient.createMerchant({ name: 'Image test store', webhookUrl: 'http://127.0.0.1:9/hooks' })
  const credentials = await generateMerchantCredentials(caClient, merchant.id)
  const agent = new Agent({ connect: { ca: credentials.caCertificate, cert: credentials.certificate, key: credentials.privateKeyPem, servername: 'localhost' } })
  const checkoutUrl = `https://127.0.0.1:${ports.checkout}`
  try {
    const health = await fetch(`${checkoutUrl}/health`, { dispatcher: agent })
    assert.equal(health.status, 200)
    const token = chain.deployment.tokens[0]!
    const created = await fetch(`${checkoutUrl}/api/v1/charges`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '3000000', token: token.address, beneficiary: chain.deployment.recipients[0], currency: token.symbol, orderId: 'image-1' }),
    })
    assert.equal(created.status, 201)
    const charge = (await created.json()) as { id: string; orderReference: `0x${string}`; beneficiary: `0x${string}` }
    const page = await fetch(`${widgetUrl}/s/${charge.id}`)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /<svg|<img/)
    await sendSettlements(chain, 1, { principal: () => 3_000_000n, orderReference: () => charge.orderReference, recipient: () => charge.beneficiary })
    // The image's CONFIRMATION_BLOCKS (12) applies to the explorer and the checkout engine alike.
    await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).mine({ blocks: 12 })
    let last: unknown
    await waitFor('the charge to settle', async () => {
      const answer = await fetch(`${checkoutUrl}/api/v1/charges/${charge.id}`, { dispatcher: agent })
      last = await answer.json()
      return (last as { status: string }).status === 'settled'
    }, PATIENCE_MS).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(last)}\n${checkout.output.lines.join('\n')}`)
    })
  } finally {
    await agent.close()
  }

  await stop(widget, 'widget')
  await stop(checkout, 'checkout')
  await stop(submitter, 'submitter')
  await stop(gateway, 'gateway')
  await stop(dataService, 'data-service')
  await stop(explorer, 'explorer')
  await stop(ca, 'ca')
})

test('the compiled explorer serves from two server threads (dist/server-thread.js) and stops on SIGTERM', async () => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const explorer = start('explorer', {
    CHAIN_ID: '31337',
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    START_BLOCK: String(chain.deployment.startBlock),
    DATA_DIR: join(dataDir, 'explorer-threads'),
    EXPLORER_PORT: String(port),
    SERVER_THREADS: '2',
  })
  // The main thread answers from its start, the second once it listens: ask until the metrics say it answered.
  await waitFor('the second server thread to answer', async () => {
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => freshGet(`${url}/events?limit=1`)))
      for (const answer of answers) assert.equal(answer.status, 200, answer.body)
      return /^explorer_server_thread_requests\{thread="1"\} [1-9]/m.test((await freshGet(`${url}/metrics`)).body)
    } catch (error) {
      // Not listening yet.
      if ((error as { code?: string }).code !== 'ECONNREFUSED') throw error
      return false
    }
  }, PATIENCE_MS)
  await stop(explorer, 'explorer on two server threads')
})
