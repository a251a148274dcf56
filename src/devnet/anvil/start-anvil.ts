/**
 * Starts a local anvil chain as a child process and resolves once its JSON-RPC endpoint answers.
 * Port 0 lets anvil bind a free port itself and reads it back from its "Listening on" line: picking a
 * port first and passing it on would race with other processes (parallel test files) for that port,
 * and the readiness check could then be answered by somebody else's chain.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { anvilBinaryPath } from './anvil-binary.js'
import { BaseError } from '../../errors/index.js'

export interface StartAnvilOptions {
  port?: number
  host?: string
  chainId?: number
  /** Seconds between blocks; omitted = automine (a block per transaction). */
  blockTime?: number
  /** Unix seconds of the genesis block; the chain's clock then runs on from it (default: now). */
  timestamp?: number
  /** Block gas limit; the default leaves room for thousands of settlements per block. */
  gasLimit?: bigint
  /** Hide anvil's own output (default true); its last lines are still reported if it fails to start. */
  silent?: boolean
}

export interface AnvilInstance {
  rpcUrl: string
  port: number
  process: ChildProcess
  stop(): Promise<void>
}

const READY_TIMEOUT_MS = 15_000

export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const host = opts.host ?? '127.0.0.1'
  const args = [
    '--host', host,
    '--port', String(opts.port ?? 0),
    '--chain-id', String(opts.chainId ?? 31337),
    '--gas-limit', String(opts.gasLimit ?? 1_000_000_000n),
  ]
  if (opts.blockTime !== undefined) args.push('--block-time', String(opts.blockTime))
  if (opts.timestamp !== undefined) args.push('--timestamp', String(opts.timestamp))

  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  let announced: (port: number) => void = () => {}
  const listening = new Promise<number>((resolve) => (announced = resolve))
  const keepOutput = (chunk: Buffer) => {
    if (opts.silent === false) process.stdout.write(chunk)
    output = (output + chunk.toString()).slice(-2000)
    const match = /Listening on [^\s]*:(\d+)/.exec(output)
    if (match) announced(Number(match[1]))
  }
  child.stdout?.on('data', keepOutput)
  child.stderr?.on('data', keepOutput)
  // Never leave an orphaned anvil behind, whatever way this process ends.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    process.off('exit', killOnExit)
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await exited
    }
  }

  let rpcUrl = `http://${host}:${opts.port ?? 0}`
  try {
    const giveUp = new AbortController()
    const port = await Promise.race([
      listening,
      exited.then(() => Promise.reject(new BaseError(`exited with code ${child.exitCode}`))),
      sleep(READY_TIMEOUT_MS, undefined, { signal: giveUp.signal }).then(() => Promise.reject(new BaseError('no "Listening on" line'))),
    ]).finally(() => giveUp.abort())
    rpcUrl = `http://${host}:${port}`
    await waitForRpc(rpcUrl, child)
    return { rpcUrl, port, process: child, stop }
  } catch (error) {
    await stop()
    throw new BaseError(`anvil did not start on ${rpcUrl}: ${(error as Error).message}\n${output.trim()}`, { cause: error })
  }
}

async function waitForRpc(rpcUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new BaseError(`exited with code ${child.exitCode}`)
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      if (response.ok) return
    } catch {
      // Not listening yet.
    }
    await sleep(50)
  }
  throw new BaseError(`no answer within ${READY_TIMEOUT_MS} ms`)
}
