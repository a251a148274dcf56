/**
 * Listening for the explorer's app, in the main thread and in server threads alike. Server threads share
 * the port (SO_REUSEPORT), which this uWS build sets on a given port but not on an ephemeral one: for
 * port 0 with threads (`shared`), a port is found first, then listened on again. Without threads the
 * port is the explorer's alone: one another server holds is refused (bindUws).
 */
import uWS from 'uWebSockets.js'
import { bindUws } from '../../platform/http/index.js'
import { ConfigError } from '../../config/index.js'

export async function listenApp(app: uWS.TemplatedApp, host: string, port: number, shared: boolean): Promise<uWS.us_listen_socket> {
  const on = (at: number) => bindUws(app, host, at, { exclusive: !shared })
  const socket = await on(port)
  if (!socket) throw new ConfigError(`EXPLORER_PORT ${port} on ${host} is not available (another server listens on it)`)
  if (port !== 0 || !shared) return socket
  const found = uWS.us_socket_local_port(socket)
  uWS.us_listen_socket_close(socket)
  const again = await on(found)
  if (!again) throw new ConfigError(`port ${found} on ${host}, free a moment ago, is not available`, { retryable: true })
  return again
}
