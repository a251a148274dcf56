/**
 * `npm start` stopped the way a terminal stops it: SIGINT to the whole foreground process group, while
 * demo traffic is flowing. Every piece stops in order before anvil and PostgreSQL, nothing warns, the
 * last line is `stopped`, the exit code is 0 and nothing is left listening.
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, test } from 'node:test'
import { PRINTED, spawnNpmStart, type NpmStart } from './npm-start.js'

let started: NpmStart | undefined
after(() => started?.kill())

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.once('connect', () => (socket.destroy(), resolve(false)))
    socket.once('error', () => resolve(true))
  })
}

test('Ctrl-C on npm start: no warning, a final "stopped", exit 0, nothing left listening', { timeout: 180_000 }, async () => {
  started = await spawnNpmStart({ LOG_LEVEL: 'info' })
  const { child, exited } = started
  const output = started.output
  const urls = [PRINTED.devnet, PRINTED.explorer, PRINTED.store]
  try {
    // Traffic flows once the explorer has a settlement; the progress line would say so only every 10 s.
    const settled = async () => {
      if (!urls.every((pattern) => pattern.test(output()))) return false
      const answer = await fetch(`${urls[1]!.exec(output())![1]}/events?limit=1`).catch(() => undefined)
      return answer?.ok === true && ((await answer.json()) as { events: unknown[] }).events.length > 0
    }
    while (!(await settled())) {
      if (child.exitCode !== null) assert.fail(`npm start ended before traffic flowed:\n${output()}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  } catch (error) {
    await started.kill()
    throw error
  }

  process.kill(-child.pid!, 'SIGINT')
  const [code] = await exited
  const afterStop = output().slice(output().indexOf('stopping (SIGINT)'))
  assert.equal(code, 0, output())
  // The traffic line's "0 failed" is the one "failed" allowed.
  assert.doesNotMatch(afterStop, /"level":"(warn|error)"|(?<!\b0 )failed|Error/, afterStop)
  assert.equal(output().trim().split('\n').at(-1), 'stopped')
  for (const url of urls.map((pattern) => pattern.exec(output())![1]!)) assert.ok(await refused(url), `${url} still answers after stop`)
})
