/**
 * The wallet path (issue: processor part 1): payments per second through WalletClient → gateway →
 * PostgreSQL → submitter → mined on anvil (automine), against the same number of payments sent straight
 * to the contract by the traffic generator, in one run on one anvil; the cost of verifying one signed
 * envelope; and how many idle WebSockets one gateway process holds.
 *
 * The gateway and its submitter run as `npm run gateway` in a child process; the load generators
 * (wallets, the direct sender), anvil and PostgreSQL share the rest of the 2 cores. The CPU each of them
 * used per payment is reported for both paths: on this machine the sum, not any one wait, bounds the
 * rate, and it shows how much of it is the load generator's signing rather than the gateway's work.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Bench } from 'tinybench'
import { privateKeyToAccount } from 'viem/accounts'
import WebSocket from 'ws'
import { startAnvil } from '../../src/devnet/anvil/index.js'
import { createChainClient } from '../../src/chain/index.js'
import { readDirectory } from '../../src/chain/index.js'
import { deployDevnet } from '../../src/devnet/local-devnet/index.js'
import type { Deployment } from '../../src/wire/index.js'
import { openDatabase } from '../../src/processor/db/index.js'
import { createMessageReader } from '../../src/processor/gateway/index.js'
import { signEnvelope } from '../../src/wire/index.js'
import { createLogger } from '../../src/platform/observability/index.js'
import { runTraffic } from '../../src/devnet/traffic/index.js'
import { runWalletTraffic } from '../../src/devnet/traffic/index.js'
import { fmt, table, verdict } from '../lib/format.js'
import { nativeAccount } from '../../src/chain/index.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'

export async function gateway(ctx: BenchContext): Promise<SectionResult> {
  const payments = ctx.quick ? 150 : 1500
  const payers = 64
  const anvil = await startAnvil({ port: 0 })
  const db = await openDatabase({ embeddedDir: join(tmpdir(), `bench-pg-${randomBytes(4).toString('hex')}`) }, createLogger('silent'))
  let child: ChildProcess | undefined
  try {
    const deployment = await deployDevnet({ rpcUrl: anvil.rpcUrl, payers })
    const publicClient = createChainClient({ rpcUrl: anvil.rpcUrl })
    const loadBefore = load1()

    ctx.log(`  direct: ${payments} payments straight to the contract`)
    let cpu = cpuByRole()
    const direct = await runTraffic({ publicClient, deployment, relayerKey: deployment.relayerKey!, accountOf: nativeAccount, rate: 0, count: payments })
    const directCpu = cpuSince(cpu, payments)

    const started = await startGatewayProcess(anvil.rpcUrl, deployment, db.url)
    child = started.child
    ctx.log(`  gateway: ${payments} payments from ${payers} wallets through ${started.wsUrl}`)
    const directory = await readDirectory({ publicClient, settlementContract: deployment.settlementContract, fromBlock: BigInt(deployment.startBlock) })
    cpu = cpuByRole(child.pid)
    const viaGateway = await runWalletTraffic({ deployment, directory, gatewayUrl: started.wsUrl, accountOf: nativeAccount, rate: 0, count: payments })
    const gatewayCpu = cpuSince(cpu, payments, child.pid)
    const ratio = viaGateway.rate / direct.rate

    const verifyMicros = await envelopeCost(deployment.chainId, deployment.payerKeys[0]!)
    const sockets = await idleSockets(ctx, started.wsUrl, started.url, started.child.pid!)
    const loadAfter = load1()

    const markdown = [
      `Run: one anvil (automine), ${payers} payers, ${payments} payments per path; load ${loadBefore} → ${loadAfter}.`,
      '',
      '- **Direct**: the traffic generator signs each payment (permit and binding signatures) and its relayer sends it, up to 256 in flight; ' +
        'sends go one request per transaction, each after the previous one was answered (nonce order), so anvil mines one transaction per block.',
      '- **Through the gateway**: each of the 64 wallets (`WalletClient`, one connection each) pays one payment at a time and waits for SUCCESS (mined): ' +
        'GET_FEES and GET_NONCE, then SUBMIT_PAYMENT — three signed envelopes and two payment signatures per payment. ' +
        'The gateway checks each envelope, then the submission (signatures, permit nonce), and queues it; the submitter validates a batch (a simulation), ' +
        'records it and sends it as one JSON-RPC batch, so anvil mines several per block — why this path can beat the direct one.',
      '- Both load generators run in this process and sign with the same account (`src/chain/tx/native-signer.ts`: viem\'s signatures, checked against viem by its unit test, made with libsecp256k1), ' +
        'so that simulating 64 wallets — 5 signatures per payment — takes less of the 2 cores the gateway is measured on; the direct path\'s relayer (the tx sender) and the submitter sign with libsecp256k1 too.',
      '- CPU per payment below is each process\'s CPU time over the phase divided by the payments: their sum against the 2 cores (less what other work on the machine takes) is what bounds both rates.',
      '',
      table(
        ['measure', 'figure', 'goal', 'verdict'],
        [
          ['direct to the contract (`npm run traffic -- --direct --rate 0`)', `${fmt(direct.rate, 1)} payments/s (${direct.settled}/${payments} settled)`, '', ''],
          ['through gateway → submitter (`npm run traffic -- --rate 0`)', `${fmt(viaGateway.rate, 1)} payments/s (${viaGateway.settled}/${payments} settled, ${viaGateway.failed} failed)`, '', ''],
          ['ratio gateway / direct', fmt(ratio, 2), '≥ 0.8', verdict(ratio >= 0.8)],
          ['CPU per payment, direct', describeCpu(directCpu), '', ''],
          ['CPU per payment, through the gateway', describeCpu(gatewayCpu), '', ''],
          ['envelope verification (parse + EIP-712 hash + recovery), per message', `${fmt(verifyMicros, 0)} µs`, '', ''],
          ['idle WebSockets held by one gateway process', `${fmt(sockets.held)} of ${fmt(sockets.tried)} (RSS ${fmt(sockets.rssMb)} MB)`, '10,000', verdict(sockets.held >= 10_000)],
        ],
      ),
    ].join('\n')
    return {
      markdown,
      headline: {
        'Gateway payments/s vs direct (goal ≥ 0.8)': `${fmt(viaGateway.rate, 1)} vs ${fmt(direct.rate, 1)} = ${fmt(ratio, 2)} — ${verdict(ratio >= 0.8)}`,
        'Gateway envelope verification': `${fmt(verifyMicros, 0)} µs per message`,
        'Gateway path CPU per payment': describeCpu(gatewayCpu),
        'Gateway idle sockets (goal 10,000)': `${fmt(sockets.held)} — ${verdict(sockets.held >= 10_000)}`,
      },
    }
  } finally {
    child?.kill('SIGTERM')
    await db.close()
    await anvil.stop()
  }
}

async function startGatewayProcess(rpcUrl: string, deployment: Deployment, databaseUrl: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/gateway.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      RPC_URL: rpcUrl,
      SETTLEMENT_CONTRACT: deployment.settlementContract,
      START_BLOCK: String(deployment.startBlock),
      RELAYER_PRIVATE_KEY: deployment.relayerKey!,
      // No explorer here: history and transfer pushes are not measured; the feed retries quietly.
      EXPLORER_URL: 'http://127.0.0.1:9',
      GATEWAY_PORT: '0',
      GATEWAY_MESSAGES_PER_SECOND: '1000',
      GATEWAY_MESSAGE_BURST: '1000',
      // Every load generator's socket comes from this machine's one address.
      GATEWAY_MAX_CONNECTIONS_PER_IP: '20000',
      GATEWAY_IP_MESSAGES_PER_SECOND: '1000000',
      GATEWAY_IP_MESSAGE_BURST: '1000000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let lastLine = ''
  const { wsUrl } = await new Promise<{ wsUrl: string }>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      // The logger cuts URL paths (a node key may live there): the port is what the line gives.
      const match = /"msg":"wallet gateway listening".*"wsUrl":"(ws:\/\/127\.0\.0\.1:\d+)\//.exec(line)
      if (match) resolve({ wsUrl: `${match[1]}/ws` })
      lastLine = line
    })
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${lastLine}`)))
  })
  return { child, wsUrl, url: wsUrl.replace(/^ws/, 'http').replace(/\/ws$/, '') }
}

/** The gateway's whole per-message check, in this process: JSON parse, structure, hash, recovery. */
async function envelopeCost(chainId: number, key: `0x${string}`): Promise<number> {
  const reader = createMessageReader({ chainId, maxMessageBytes: 65_536, maxSeparators: 32 })
  const envelope = await signEnvelope({ account: privateKeyToAccount(key), chainId, type: 'GET_BALANCE', payload: { requestId: '1', domainSeparators: [`0x${'ab'.repeat(32)}`] } })
  const frame = new TextEncoder().encode(JSON.stringify(envelope)).buffer as ArrayBuffer
  const bench = new Bench({ time: 2000 })
  bench.add('verify', async () => {
    const result = await reader.read(frame, false, Math.floor(Date.now() / 1000))
    if (!('message' in result)) throw new Error('the envelope did not verify')
  })
  await bench.run()
  const task = bench.tasks[0]!.result as { latency?: { mean: number }; mean?: number }
  return (task.latency?.mean ?? task.mean ?? NaN) * 1000
}

type Role = 'load generator' | 'gateway + submitter' | 'anvil' | 'PostgreSQL'

/**
 * CPU seconds used so far by this process and its descendants, by role (from /proc: the gateway child
 * and anything it started, anvil, the embedded PostgreSQL's processes; this process = the load generator).
 */
function cpuByRole(gatewayPid?: number): Map<Role, number> {
  const procs = new Map<number, { ppid: number; comm: string; seconds: number }>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      procs.set(Number(entry), { ppid: Number(fields[1]), comm, seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS })
    } catch {
      // the process ended while /proc was read
    }
  }
  const children = new Map<number, number[]>()
  for (const [pid, { ppid }] of procs) children.set(ppid, [...(children.get(ppid) ?? []), pid])
  const byRole = new Map<Role, number>()
  const walk = (pid: number, inherited?: Role) => {
    const proc = procs.get(pid)
    if (!proc) return
    const role: Role | undefined =
      pid === process.pid ? 'load generator' : pid === gatewayPid ? 'gateway + submitter' : proc.comm === 'anvil' ? 'anvil' : proc.comm.startsWith('postgres') ? 'PostgreSQL' : inherited
    if (role) byRole.set(role, (byRole.get(role) ?? 0) + proc.seconds)
    for (const child of children.get(pid) ?? []) walk(child, role === 'load generator' ? undefined : role)
  }
  walk(process.pid)
  return byRole
}

const CLOCK_TICKS = 100

/** Milliseconds of CPU per payment, by role, since `before`. */
function cpuSince(before: Map<Role, number>, payments: number, gatewayPid?: number): Map<Role, number> {
  const after = cpuByRole(gatewayPid)
  return new Map([...after].map(([role, seconds]) => [role, ((seconds - (before.get(role) ?? 0)) * 1000) / payments]))
}

function describeCpu(perPayment: Map<Role, number>): string {
  const roles: Role[] = ['load generator', 'gateway + submitter', 'anvil', 'PostgreSQL']
  const total = roles.reduce((sum, role) => sum + (perPayment.get(role) ?? 0), 0)
  return `${fmt(total, 1)} ms: ${roles.filter((role) => (perPayment.get(role) ?? 0) >= 0.05).map((role) => `${role} ${fmt(perPayment.get(role)!, 1)}`).join(', ')}`
}

/** Opens idle WebSockets (no message sent, inside the first-message window) and counts those held. */
async function idleSockets(ctx: BenchContext, wsUrl: string, httpUrl: string, pid: number) {
  const tried = ctx.quick ? 1000 : 10_000
  const sockets: WebSocket[] = []
  let open = 0
  for (let i = 0; i < tried; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, tried - i) }, () =>
        new Promise<void>((resolve) => {
          const socket = new WebSocket(wsUrl)
          sockets.push(socket)
          socket.once('open', () => {
            open++
            resolve()
          })
          socket.once('error', () => resolve())
        }),
      ),
    )
  }
  const health = (await (await fetch(`${httpUrl}/health`)).json()) as { connections?: number }
  const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024
  for (const socket of sockets) socket.terminate()
  return { tried, held: Math.min(open, health.connections ?? open), rssMb }
}
