/** The fan-out load generator as a bench child: `connect` (with FanoutOptions), `start`, `stop`. */
import { serveParent } from '../lib/child.js'
import { FanoutClients, type FanoutOptions } from './ws-fanout.js'

let clients: FanoutClients | undefined
serveParent(async (message) => {
  switch (message.type) {
    case 'connect':
      clients = new FanoutClients(message.options as FanoutOptions)
      await clients.connect()
      return {}
    case 'start':
      clients?.start()
      return {}
    case 'stop':
      return { tally: clients?.stop() }
    default:
      return {}
  }
})
process.send?.({ type: 'ready' })
