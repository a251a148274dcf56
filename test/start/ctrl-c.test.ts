/**
 * `npm start` stopped the way a terminal stops it: SIGINT to the whole foreground process group, while
 * demo traffic is flowing. Every piece stops in order before anvil and PostgreSQL, nothing warns, the
 * last line is `stopped`, the exit code is 0 and nothing is left listening.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { findFreePort } from '../../src/platform/net/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const cwd = mkdtempSync(join(tmpdir(), 'npm-start-'))
// The embedded PostgreSQL runs as the postgres user, who must be able to reach .data/postgres.
chmodSync(cwd, 0o755)
after(() => rmSync(cwd, { recursive: true, force: true }))

const PORT_SETTINGS = ['EXPLORER_PORT', 'DATA_SERVICE_PORT', 'GATEWAY_PORT', 'CA_PORT', 'CHECKOUT_PORT', 'WIDGET_PORT', 'STORE_PORT']

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.once('connect', () => (socket.destroy(), resolve(false)))
    socket.once('error', () => resolve(true))
  })
}

test('Ctrl-C on npm start: no warning, a final "stopped", exit 0, nothing left listening', { timeout: 180_000 }, async () => {
  const ports = Object.fromEntries(await Promise.all(PORT_SETTINGS.map(async (name) => [name, String(await findFreePort())])))
  // detached: a process group of its own, as a terminal gives the command it runs in the foreground.
  const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'scripts/start.ts'), '--port', '0'], {
    cwd,
    detached: true,
    env: { ...process.env, ...ports, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const urls = [/devnet: +(http:\/\/\S+),/, /explorer: +(http:\/\/\S+)\/events/, /open (http:\/\/\S+)/]
  try {
    // Traffic flows once the explorer has a settlement; the progress line would say so only every 10 s.
    const settled = async () => {
      if (!urls.every((pattern) => pattern.test(output))) return false
      const answer = await fetch(`${urls[1]!.exec(output)![1]}/events?limit=1`).catch(() => undefined)
      return answer?.ok === true && ((await answer.json()) as { events: unknown[] }).events.length > 0
    }
    while (!(await settled())) {
      if (child.exitCode !== null) assert.fail(`npm start ended before traffic flowed:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  } catch (error) {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL')
    throw error
  }

  process.kill(-child.pid!, 'SIGINT')
  const [code] = await exited
  const afterStop = output.slice(output.indexOf('stopping (SIGINT)'))
  assert.equal(code, 0, output)
  // The traffic line's "0 failed" is the one "failed" allowed.
  assert.doesNotMatch(afterStop, /"level":"(warn|error)"|(?<!\b0 )failed|Error/, afterStop)
  assert.equal(output.trim().split('\n').at(-1), 'stopped')
  for (const url of urls.map((pattern) => pattern.exec(output)![1]!)) assert.ok(await refused(url), `${url} still answers after stop`)
})
