/**
 * Binding a uWebSockets.js app. uWS sets SO_REUSEPORT on every port it listens on, so a second server on a
 * port already in use (a second explorer, a test's server on a port another file picked) shared it silently
 * and took half its connections. A server listens with LIBUS_LISTEN_EXCLUSIVE_PORT, which binds without
 * SO_REUSEPORT: a taken port is refused, and nothing can join it later. Only the explorer's server
 * threads share their port on purpose (`exclusive: false`).
 */
import uWS from 'uWebSockets.js'
import { ConfigError } from '../../config/index.js'

const LIBUS_LISTEN_EXCLUSIVE_PORT = 1

// The typings know the options argument only without a host; the native build takes (host, port, options, cb).
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void) => uWS.TemplatedApp

/** The listen socket, or `false` when the port cannot be had. */
export function bindUws(app: uWS.TemplatedApp, host: string, port: number, { exclusive }: { exclusive: boolean }): Promise<uWS.us_listen_socket | false> {
  const listen = app.listen.bind(app) as unknown as ListenWithOptions
  return new Promise((resolve) => listen(host, port, exclusive ? LIBUS_LISTEN_EXCLUSIVE_PORT : 0, resolve))
}

/** Listens on a port no other server has, or fails with one line naming its setting. */
export async function listenUws(app: uWS.TemplatedApp, { host, port, portSetting }: { host: string; port: number; portSetting: string }): Promise<uWS.us_listen_socket> {
  const socket = await bindUws(app, host, port, { exclusive: true })
  if (!socket) throw new ConfigError(`${portSetting} ${port} on ${host} is not available (another server listens on it)`)
  return socket
}
