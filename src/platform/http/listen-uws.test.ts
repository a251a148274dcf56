/**
 * listenUws refuses a port another server holds, whether that server is a uWS app (which would otherwise
 * share it through SO_REUSEPORT) or a node:net one, and one it holds cannot be joined later.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { test } from 'node:test'
import uWS from 'uWebSockets.js'
import { ConfigError } from '../../config/index.js'
import { bindUws, listenUws } from './listen-uws.js'

const HOST = '127.0.0.1'

test('a second uWS app on a taken port is refused, and the holder cannot be joined by a sharing one', async () => {
  // On a given port: this build sets SO_REUSEPORT only there, so one bound on port 0 is never shared anyway.
  const probe = await listenUws(uWS.App(), { host: HOST, port: 0, portSetting: 'TEST_PORT' })
  const port = uWS.us_socket_local_port(probe)
  uWS.us_listen_socket_close(probe)
  const first = await listenUws(uWS.App(), { host: HOST, port, portSetting: 'TEST_PORT' })
  try {
    await assert.rejects(listenUws(uWS.App(), { host: HOST, port, portSetting: 'TEST_PORT' }), (error) => {
      assert.ok(error instanceof ConfigError)
      assert.equal(error.message, `TEST_PORT ${port} on ${HOST} is not available (another server listens on it)`)
      return true
    })
    assert.equal(await bindUws(uWS.App(), HOST, port, { exclusive: false }), false)
  } finally {
    uWS.us_listen_socket_close(first)
  }
})

test('a port a node:net server holds is refused', async () => {
  const server = createServer().listen(0, HOST)
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  try {
    await assert.rejects(listenUws(uWS.App(), { host: HOST, port, portSetting: 'TEST_PORT' }), ConfigError)
  } finally {
    server.close()
  }
})

test('sharing listeners share a port, as server threads do', async () => {
  const first = await bindUws(uWS.App(), HOST, 0, { exclusive: false })
  assert.ok(first)
  const port = uWS.us_socket_local_port(first)
  // This build sets SO_REUSEPORT only on a given port: the first of the sharing listeners binds it again.
  uWS.us_listen_socket_close(first)
  const sharing = [await bindUws(uWS.App(), HOST, port, { exclusive: false }), await bindUws(uWS.App(), HOST, port, { exclusive: false })]
  try {
    assert.ok(sharing.every((socket) => socket !== false))
  } finally {
    for (const socket of sharing) if (socket) uWS.us_listen_socket_close(socket)
  }
})
