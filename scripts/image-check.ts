/**
 * `npm run image:check`: the container images built and run for real, with docker when it is present,
 * else with podman through the shared tool (`../shared/tools/container-base.sh`, or CONTAINER_BASE_TOOL)
 * that installs podman and a stand-in for node:20-bookworm-slim where no registry is reachable. Not part
 * of `npm test` (a build takes minutes). It
 *
 * 1. builds every target of the Dockerfile and reports each image's size above its base;
 * 2. runs the explorer image against a devnet on this machine: `/health` (and the image's HEALTHCHECK),
 *    the indexed total after settlements at the image's 12 confirmations, the user it runs as, the time
 *    from start to `/health` and the time `stop` takes (exit code 0);
 * 3. runs the demo image (`run … demo`, ports 3000, 4001, 4004 published): the store page from the host,
 *    a purchase through the whole flow (buy → payment page on the widget → the demo wallet pays → the
 *    order is paid), the explorer's total, the user, start and stop times;
 * 4. checks compose.yaml with the engine's compose (`config`, or podman-compose's `--dry-run`).
 *
 * Prints a Markdown table of the figures (docs/images.md's "Measured" lines come from it); exits 1 on a failure.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createTestClient, http } from 'viem'
import { sendSettlements, startLocalChain } from '../src/devnet/testing/index.js'

const root = resolve(import.meta.dirname, '..')
const TARGETS = ['explorer', 'gateway', 'submitter', 'data-service', 'checkout', 'ca', 'widget', 'demo-store', 'demo']
const BASE = 'docker.io/library/node:20-bookworm-slim'
const tool = process.env.CONTAINER_BASE_TOOL ?? resolve(root, '../shared/tools/container-base.sh')
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0
/** docker only with a daemon that answers (a docker CLI alone, as podman-compose's packages may bring, is not an engine). */
const dockerWorks = has('docker') && spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0
const engine = dockerWorks ? 'docker' : 'podman'
const results: [string, string][] = []
const failures: string[] = []

function run(command: string, args: string[], options: { allowFailure?: boolean; quiet?: boolean } = {}): string {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0 && !options.allowFailure) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${(result.stdout + result.stderr).slice(-4000)}`)
  return result.stdout.trim()
}
/**
 * `run` with this machine's flags: the shared tool's for podman, which takes no command after the image
 * (the image's CMD, `demo` for the demo, is what runs); docker gets `command` as a user would type it.
 */
const containerRun = (image: string, flags: string[], command: string[] = []) =>
  engine === 'podman' ? run(tool, ['run', image, ...flags]) : run('docker', ['run', ...flags, image, ...command])
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
function check(name: string, ok: boolean, detail = ''): void {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`)
  if (!ok) failures.push(name)
}
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
const getJson = async (url: string) => {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
const imageBytes = (image: string) => Number(run(engine, ['image', 'inspect', '--format', '{{.Size}}', image]))

/** Stops a container, returning how long `stop` took and the exit code. */
function stop(name: string): { ms: number; exitCode: number } {
  const started = performance.now()
  run(engine, ['stop', '-t', '20', name])
  const ms = performance.now() - started
  const exitCode = Number(run(engine, ['inspect', '--format', '{{.State.ExitCode}}', name]))
  return { ms, exitCode }
}

function build(): void {
  if (engine === 'podman') run(tool, ['base'])
  const base = imageBytes(BASE)
  results.push(['base image (node:20-bookworm-slim' + (engine === 'podman' ? ', the local stand-in' : '') + ')', megabytes(base)])
  for (const target of TARGETS) {
    const started = performance.now()
    // The shared tool builds the default target only; other targets get the same flags and --target.
    const flags = engine === 'podman' ? ['build', '--isolation=chroot', '--format', 'docker'] : ['build']
    run(engine, [...flags, '--target', target, '-t', `settlement-${target}`, '.'])
    const above = imageBytes(`settlement-${target}`) - base
    console.log(`built settlement-${target} in ${seconds(performance.now() - started)}: ${megabytes(above)} above the base`)
    results.push([`image \`${target}\`, above the base`, megabytes(above)])
    if (target === 'explorer') check('the explorer image is at most 60 MB above its base', above <= 60e6, megabytes(above))
  }
}

async function explorer(): Promise<void> {
  const chain = await startLocalChain()
  const name = `image-check-explorer-${process.pid}`
  const volume = mkdtempSync(join(tmpdir(), 'image-check-volume-'))
  const port = 14001
  try {
    spawnSync('chmod', ['777', volume])
    const started = performance.now()
    containerRun('settlement-explorer', [
      '-d', '--name', name, '--network', 'host', '-v', `${volume}:/data`,
      '-e', 'CHAIN_ID=31337', '-e', `RPC_URL=${chain.rpcUrl}`, '-e', `SETTLEMENT_CONTRACT=${chain.deployment.settlementContract}`,
      '-e', `START_BLOCK=${chain.deployment.startBlock}`, '-e', `EXPLORER_PORT=${port}`, '-e', 'POLL_INTERVAL_MS=100',
    ])
    const base = `http://127.0.0.1:${port}`
    await until('the explorer container to answer /health', async () => ((await getJson(`${base}/health`)).status === 200 ? true : undefined), 60_000)
    results.push(['explorer container: start → `/health` 200', seconds(performance.now() - started)])
    check('explorer /health', true)
    check('explorer HEALTHCHECK passes', spawnSync(engine, ['exec', name, 'scripts/image-steps.sh', 'healthcheck']).status === 0)
    const user = run(engine, ['exec', name, 'id', '-un'])
    check('explorer runs as node', user === 'node', user)
    await sendSettlements(chain, 6)
    await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).mine({ blocks: 12 })
    const total = await until('6 settlements indexed', async () => ((await getJson(`${base}/events`)).body.total === 6 ? 6 : undefined), 60_000)
    check('explorer indexed total', total === 6, `${total} at 12 confirmations`)
    const stopped = stop(name)
    check('explorer stops with exit code 0', stopped.exitCode === 0, `${stopped.exitCode} after ${seconds(stopped.ms)}`)
    results.push(['explorer container: `stop` (SIGTERM → exit 0)', seconds(stopped.ms)])
  } finally {
    run(engine, ['rm', '-f', '-v', name], { allowFailure: true })
    rmSync(volume, { recursive: true, force: true })
    await chain.stop()
  }
}

async function demo(): Promise<void> {
  const name = `image-check-demo-${process.pid}`
  try {
    const started = performance.now()
    containerRun('settlement-demo', ['-d', '--name', name, '-p', '3000:3000', '-p', '4001:4001', '-p', '4004:4004'], ['demo'])
    const store = 'http://127.0.0.1:3000'
    await until('the demo store to answer from the host', async () => ((await fetch(`${store}/health`)).ok ? true : undefined), 180_000)
    results.push(['demo container: start → store answering on the host', seconds(performance.now() - started)])
    const home = await fetch(store)
    check('demo store page from the host', home.status === 200 && /<form/i.test(await home.text()))
    const user = run(engine, ['exec', name, 'id', '-un'])
    check('demo runs as node', user === 'node', user)

    // A purchase: the buy form redirects to the payment page on the widget, the demo wallet pays it.
    const bought = await fetch(`${store}/orders`, { method: 'POST', body: new URLSearchParams({ product: 'coffee' }), redirect: 'manual' })
    const widgetUrl = bought.headers.get('location') ?? ''
    check('buying redirects to the payment page', bought.status >= 300 && bought.status < 400 && widgetUrl.startsWith('http://127.0.0.1:4004/'), `${bought.status} ${widgetUrl}`)
    const payment = await fetch(widgetUrl)
    check('the payment page loads from the host', payment.status === 200, String(payment.status))
    const orders = (await (await fetch(store)).text()).match(/\/orders\/(o_[0-9a-f]{10})/g) ?? []
    const order = orders[0]?.slice('/orders/'.length)
    if (!order) throw new Error('the store lists no order after buying')
    const paid = performance.now()
    await fetch(`${store}/orders/${order}/demo-wallet`, { method: 'POST', redirect: 'manual' })
    const status = await until('the order to be paid', async () => {
      const text = await readFirstEvent(`${store}/orders/${order}/events`)
      const view = JSON.parse(text) as { status: string }
      return view.status === 'paid' ? view.status : undefined
    }, 120_000)
    check('a purchase completes (order paid)', status === 'paid', `in ${seconds(performance.now() - paid)}`)
    results.push(['demo: demo-wallet payment → order `paid`', seconds(performance.now() - paid)])
    const total = (await getJson('http://127.0.0.1:4001/events')).body.total as number
    check('the demo explorer serves settlements on the host', total > 0, `total ${total}`)
    const stopped = stop(name)
    check('demo stops with exit code 0', stopped.exitCode === 0, `${stopped.exitCode} after ${seconds(stopped.ms)}`)
    results.push(['demo container: `stop` (all pieces, PostgreSQL, anvil)', seconds(stopped.ms)])
  } finally {
    if (failures.length > 0) console.log(run(engine, ['logs', '--tail', '40', name], { allowFailure: true }))
    run(engine, ['rm', '-f', '-v', name], { allowFailure: true })
  }
}

/** The `data:` of the first `order` event of a store order's stream. */
async function readFirstEvent(url: string): Promise<string> {
  const controller = new AbortController()
  const response = await fetch(url, { signal: controller.signal })
  const reader = response.body!.getReader()
  let text = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
      const data = /^data: (.*)$/m.exec(text)
      if (data) return data[1]!
    }
  } finally {
    controller.abort()
  }
  throw new Error('the stream ended without an event')
}

function compose(): void {
  const dir = mkdtempSync(join(tmpdir(), 'image-check-compose-'))
  const project = `imagecheck${process.pid}`
  try {
    mkdirSync(join(dir, 'secrets'))
    for (const secret of ['postgres_password', 'database_url', 'relayer_private_key', 'ca_admin_token', 'ca_cert.pem', 'ca_key.pem', 'checkout_cert.pem', 'checkout_key.pem', 'webhook_secret_key', 'webhook_encryption_key', 'prometheus_cert.pem', 'prometheus_key.pem', 'grafana_admin_password']) {
      writeFileSync(join(dir, 'secrets', secret), 'placeholder\n')
    }
    const env = { ...process.env, CHAIN_ID: '8453', RPC_URL: 'https://rpc.example.com', SETTLEMENT_CONTRACT: '0x' + '11'.repeat(20), GATEWAY_DOMAIN: 'pay.example.com', CHECKOUT_WIDGET_URL: 'https://checkout.example.com' }
    const file = join(root, 'compose.yaml')
    const [command, args] = dockerWorks
      ? ['docker', ['compose', '-f', file, '--project-directory', dir, 'config', '--quiet']]
      : has('podman-compose')
        ? ['podman-compose', ['-f', file, '-p', project, '--dry-run', 'up', '--no-build']]
        : ['', []]
    if (!command) return check('compose.yaml', false, 'neither docker compose nor podman-compose is installed')
    const result = spawnSync(command, args as string[], { cwd: dir, env, encoding: 'utf8' })
    const services = (result.stdout.match(/com\.docker\.compose\.service=([\w-]+)/g) ?? []).map((s) => s.split('=')[1])
    check('compose.yaml validates', result.status === 0 && (command === 'docker' || services.length === 8), `${command}: exit ${result.status}${services.length ? `, services ${services.join(', ')}` : ''}`)
    // Without its settings, compose refuses to start (the `:?` interpolations).
    const bare = spawnSync(command, args as string[], { cwd: dir, env: { PATH: process.env.PATH }, encoding: 'utf8' })
    check('compose.yaml refuses to run without RPC_URL and the chain settings', bare.status !== 0)
  } finally {
    // podman-compose's dry run still creates the project's volumes and network.
    if (!dockerWorks) {
      for (const volume of run(engine, ['volume', 'ls', '-q', '--filter', `label=io.podman.compose.project=${project}`], { allowFailure: true }).split('\n').filter(Boolean)) run(engine, ['volume', 'rm', volume], { allowFailure: true })
      run(engine, ['network', 'rm', `${project}_default`], { allowFailure: true })
    }
    rmSync(dir, { recursive: true, force: true })
  }
}

const startedAt = performance.now()
try {
  if (engine === 'podman' && !existsSync(tool)) throw new Error(`no docker, and the shared tool ${tool} is missing (CONTAINER_BASE_TOOL)`)
  build()
  await explorer()
  await demo()
  compose()
} catch (error) {
  failures.push((error as Error).message)
  console.error((error as Error).message)
}
console.log(`\n| measured with ${engine} (${new Date().toISOString().slice(0, 10)}) | |\n|---|---|`)
for (const [what, value] of results) console.log(`| ${what} | ${value} |`)
console.log(`\nimage:check ${failures.length === 0 ? 'passed' : `FAILED: ${failures.join('; ')}`} in ${seconds(performance.now() - startedAt)}`)
process.exit(failures.length === 0 ? 0 : 1)
