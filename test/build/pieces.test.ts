/**
 * Every other piece compiled, run by the image's command (`scripts/image-steps.sh start <piece>`) with
 * production packages only, against one anvil chain and one PostgreSQL that no piece has touched yet:
 * the first to start applies the migrations from `dist/migrations`; the CA, data service and gateway pass
 * the image's HEALTHCHECK pointed at them (HEALTHCHECK_URL); the checkout engine answers over mutual TLS
 * and settles a charge paid on the chain, through the compiled explorer's feed, after the image's 12
 * confirmations; the widget serves that charge's payment page; a standby submitter starts; each one
 * stops with exit code 0 on SIGTERM. Then the explorer again on two server threads, whose second thread
 * is a file of its own in the runtime tree.
 * Every piece listens on port 0 and the test reads the port it got from its `… listening` log line: a
 * port picked free up front could be taken by another test file's server before the piece bound it.
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
import { exited, prepareImageApp, root, watchOutput, type ImageApp } from './image-app.js'

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

/**
 * Where to reach a piece started on port 0: the port of the URL in its log line `msg` (`url`, or `field`),
 * on 127.0.0.1 (the image has the pieces listen on 0.0.0.0) with http or https as it says.
 */
async function listeningUrl(piece: string, { child, output }: ReturnType<typeof start>, msg: string, field = 'url'): Promise<string> {
  const said = (line: string) => line.startsWith('{') && line.includes(`"msg":${JSON.stringify(msg)}`)
  const line = await waitFor(`${piece} to log "${msg}"`, () => {
    if (child.exitCode !== null) throw new Error(`${piece} ended before it listened`)
    return output.lines.find(said)
  }, PATIENCE_MS).catch((error: Error) => {
    throw new Error(`${error.message} (exit code ${child.exitCode}); its output:\n${output.lines.join('\n')}`)
  })
  const bound = new URL((JSON.parse(line) as Record<string, string>)[field]!)
  return `${bound.protocol === 'https:' ? 'https' : 'http'}://127.0.0.1:${bound.port}`
}

async function stop({ child, output }: ReturnType<typeof start>, piece: string) {
  child.kill('SIGTERM')
  assert.deepEqual(await exited(child), { code: 0, signal: null }, `${piece}:\n${output.lines.join('\n')}`)
  // Its output may still be arriving after the exit.
  const said = await Promise.race([output.waitFor(/^stopped$/), new Promise<undefined>((resolve) => setTimeout(resolve, 5000))])
  assert.equal(said, 'stopped', `${piece} says it stopped:\n${output.lines.join('\n')}`)
}

test('ca, explorer, data service, gateway, submitter, checkout and widget run from dist/ and stop on SIGTERM', async () => {
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
  const ca = start('ca', { ...chainEnv, CA_PORT: '0', CA_DATA_DIR: caDir })
  const caUrl = await listeningUrl('ca', ca, 'certificate authority listening')
  await healthy('ca', `${caUrl}/health`, ca)
  const { Client } = await import('pg')
  const db = new Client({ connectionString: postgres.url })
  await db.connect()
  const applied = (await db.query<{ name: string }>('SELECT name FROM pgmigrations ORDER BY id')).rows.map((row) => row.name)
  await db.end()
  assert.deepEqual(applied, readdirSync(join(root, 'src/processor/db/migrations')).map((file) => file.replace(/\.sql$/, '')).sort())

  const explorer = start('explorer', { ...chainEnv, DATA_DIR: join(dataDir, 'explorer'), EXPLORER_PORT: '0' })
  const explorerUrl = await listeningUrl('explorer', explorer, 'explorer listening')
  await healthy('explorer', `${explorerUrl}/health`, explorer)
  const dataService = start('data-service', { ...chainEnv, DATA_SERVICE_PORT: '0', EXPLORER_URL: explorerUrl })
  await healthy('data-service', `${await listeningUrl('data-service', dataService, 'data service listening')}/health`, dataService)
  const gateway = start('gateway', { ...chainEnv, GATEWAY_PORT: '0', EXPLORER_URL: explorerUrl, RELAYER_PRIVATE_KEY: chain.deployment.relayerKey! })
  const gatewayUrl = await listeningUrl('gateway', gateway, 'wallet gateway listening', 'wsUrl')
  await healthy('gateway', `${gatewayUrl}/health`, gateway)
  await gateway.output.waitFor(/active: holding the relayer lock/)
  const submitter = start('submitter', { ...chainEnv, RELAYER_PRIVATE_KEY: chain.deployment.relayerKey! })
  await submitter.output.waitFor(/submitter started/)

  const checkout = start('checkout', {
    ...chainEnv,
    CHECKOUT_PORT: '0',
    CA_DATA_DIR: caDir,
    EXPLORER_URL: explorerUrl,
    WEBHOOK_DATA_DIR: join(dataDir, 'webhooks'),
  })
  const checkoutUrl = await listeningUrl('checkout', checkout, 'checkout engine listening (mutual TLS)')
  const widget = start('widget', { ...chainEnv, WIDGET_PORT: '0' })
  const widgetUrl = await listeningUrl('widget', widget, 'checkout widget listening')
  await healthy('widget', `${widgetUrl}/health`, widget)
  const caClient = new CaClient({ url: caUrl, token: readLocalAdminToken(caDir)! })
  const merchant = await caClient.createMerchant({ name: 'Image test store', webhookUrl: 'http://127.0.0.1:9/hooks' })
  const credentials = await generateMerchantCredentials(caClient, merchant.id)
  const agent = new Agent({ connect: { ca: credentials.caCertificate, cert: credentials.certificate, key: credentials.privateKeyPem, servername: 'localhost' } })
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
  const explorer = start('explorer', {
    CHAIN_ID: '31337',
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    START_BLOCK: String(chain.deployment.startBlock),
    DATA_DIR: join(dataDir, 'explorer-threads'),
    EXPLORER_PORT: '0',
    SERVER_THREADS: '2',
  })
  const url = await listeningUrl('explorer on two server threads', explorer, 'explorer listening')
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
