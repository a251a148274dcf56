/**
 * `GET /events/export` over a large store, through raw sockets: a slow reader of a 120,000-row file keeps
 * the explorer's memory flat (the server writes only as the socket drains), still gets every row, and a
 * client that disconnects midway stops the walk at once. The store is written directly (as bench/ does):
 * 120,000 payments on anvil would take far longer than this test's budget on a shared CPU.
 */
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { seededAddress, useSeededExplorer } from '../live/seeded-explorer.js'
import { waitFor } from '../../src/devnet/testing/index.js'

const ROWS = 120_000
const settlements = Array.from({ length: ROWS }, (_, i) => ({
  token: seededAddress(0x70, i % 2),
  payer: seededAddress(0x9a, i % 5000),
  recipient: seededAddress(0x4e, i % 300),
}))
const seeded = useSeededExplorer({ settlements, perBlock: 50 })

async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${seeded.explorer.url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`explorer_${name}${labels} `))
  return Number(line?.split(' ')[1] ?? 0)
}

/**
 * Resident memory the process itself allocated (kB → bytes): RSS less the file pages LMDB maps, which
 * a walk over the whole store brings in (and the kernel can drop at will) whatever the export does.
 */
function anonymousRss(): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith('RssAnon:'))!
  return Number(line.split(/\s+/)[1]) * 1024
}

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

/** A GET on a raw socket: the test decides when bytes are read, so the socket's buffers really fill. */
function rawGet(path: string): Socket {
  const { port } = new URL(seeded.explorer.url)
  const socket = connect(Number(port), '127.0.0.1')
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  return socket
}

describe('a large export', () => {
  test('read slowly, the explorer’s memory stays flat and every row arrives', async () => {
    // Flat means: once the export runs (past its first 6 MB, when the walk, its buffers and the socket
    // are all in use), resident memory stops growing, while the other ~58 MB of the file go out.
    collectGarbage()
    const socket = rawGet('/events/export?format=ndjson')
    let bytes = 0
    let rows = 0
    let last = 0
    let settled: number | undefined
    let peak = 0
    const sampler = setInterval(() => {
      const now = anonymousRss()
      if (settled === undefined && bytes >= 6 * 1024 ** 2) settled = now
      if (settled !== undefined) peak = Math.max(peak, now)
    }, 50)
    const started = Date.now()
    await new Promise<void>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        // A row ends with `}` and LF; chunked framing and header lines end with CR LF.
        for (let i = 0; i < chunk.length; i++) if (chunk[i] === 0x0a && (i > 0 ? chunk[i - 1] : last) === 0x7d) rows++
        last = chunk[chunk.length - 1]!
        // About 16 MB/s at most: far slower than the explorer writes, so its writes must wait.
        socket.pause()
        setTimeout(() => socket.resume(), 4)
      })
      socket.on('end', resolve)
      socket.on('error', reject)
    })
    clearInterval(sampler)
    const seconds = (Date.now() - started) / 1000
    assert.ok(settled !== undefined)
    const growth = (peak - settled) / 1024 ** 2
    console.log(`export of ${ROWS} rows: ${(bytes / 1024 ** 2).toFixed(1)} MB in ${seconds.toFixed(1)} s; anonymous RSS at 6 MB ${(settled / 1024 ** 2).toFixed(0)} MB, growth after it at peak ${growth.toFixed(1)} MB`)
    assert.equal(rows, ROWS)
    assert.ok(bytes > 60 * 1024 ** 2, `a file of ${bytes} bytes`)
    // Buffering the file, or any sizable part of it, would show here.
    assert.ok(growth < 16, `anonymous RSS grew ${growth.toFixed(1)} MB while the last ${((bytes - 6 * 1024 ** 2) / 1024 ** 2).toFixed(0)} MB of the file went out`)
    assert.equal(await metric('exports_open'), 0)
  })

  test('a client that disconnects midway stops the walk at once', async () => {
    const rowsBefore = await metric('export_rows_total')
    const abortedBefore = await metric('exports_total', '{outcome="aborted"}')
    const socket = rawGet('/events/export?format=csv&order=asc')
    let bytes = 0
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes > 512 * 1024) {
          socket.pause()
          resolve()
        }
      })
    })
    socket.destroy()
    await waitFor('the export to end', async () => (await metric('exports_open')) === 0)
    const rows = (await metric('export_rows_total')) - rowsBefore
    assert.equal((await metric('exports_total', '{outcome="aborted"}')) - abortedBefore, 1)
    await new Promise((resolve) => setTimeout(resolve, 500))
    assert.equal((await metric('export_rows_total')) - rowsBefore, rows, 'no row is rendered after the disconnect')
    assert.ok(rows < ROWS / 2, `${rows} of ${ROWS} rows were rendered before the walk stopped`)
  })
})
