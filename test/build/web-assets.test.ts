/**
 * The explorer page's assets are the same bytes under tsx and in the build: `npm run build` puts the
 * compilation inside the bundle (scripts/build/web-assets-plugin.ts), and the compiled explorer, run with
 * plain node, serves the page and every asset — names, bytes, brotli and gzip — exactly as the tsx
 * explorer compiles them on first use.
 */
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { get, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { promisify } from 'node:util'
import { loadWebAssets } from '../../src/explorer/api/index.js'
import { waitFor } from '../../src/devnet/testing/index.js'
import { root, watchOutput } from './image-app.js'

// Inside the repository, so that the bundle finds node_modules above it.
mkdirSync(join(root, '.data'), { recursive: true })
const outdir = mkdtempSync(join(root, '.data', 'web-build-'))
const dataDir = mkdtempSync(join(root, '.data', 'web-build-data-'))
after(() => {
  rmSync(outdir, { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
})

/** The body as sent: fetch would decode it. */
async function rawGet(url: string, acceptEncoding: string): Promise<{ encoding: string | undefined; body: Buffer }> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => get(url, { headers: { 'accept-encoding': acceptEncoding } }, resolve).once('error', reject))
  const chunks: Buffer[] = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  return { encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }
}

test('the built explorer serves the very assets tsx compiles', async () => {
  // `npm run build` as a user runs it, on the repository's sources.
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--outdir', outdir], { cwd: root })
  // On any free port: the explorer's `explorer listening` line names the one it got.
  const child = spawn(process.execPath, [join(outdir, 'explorer.js')], {
    env: { ...process.env, RPC_URL: 'http://127.0.0.1:1', SETTLEMENT_CONTRACT: '0x5e771e0000000000000000000000000000000004', EXPLORER_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  try {
    const output = watchOutput(child)
    const listening = await waitFor('the built explorer to listen', () => output.lines.find((line) => line.includes('"msg":"explorer listening"')), 30_000)
    const url = (JSON.parse(listening) as { url: string }).url
    const page = await waitFor('the built explorer', () => fetch(url, { headers: { accept: 'text/html' } }).catch(() => undefined), 30_000)
    assert.match(page.headers.get('content-type')!, /^text\/html/)
    const html = await page.text()
    const compiled = await loadWebAssets()
    assert.deepEqual([...html.matchAll(/"\/assets\/([^"]+)"/g)].map((m) => m[1]).sort(), compiled.files.map((file) => file.name).sort())
    for (const file of compiled.files) {
      for (const [coding, bytes] of [['identity', file.identity], ['gzip', file.gzip], ['br', file.br]] as const) {
        const response = await rawGet(`${url}/assets/${file.name}`, coding)
        assert.equal(response.encoding, coding === 'identity' ? undefined : coding)
        assert.ok(Buffer.from(bytes).equals(response.body), `${file.name} (${coding}) is the same bytes`)
      }
    }
    assert.equal((await (await fetch(url)).json()).name, 'settlement-explorer')
  } finally {
    child.kill('SIGKILL')
  }
})
