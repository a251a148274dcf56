/** The HTTP load generator as a bench child: answers `{ type: 'run', options }` with a LoadResult. */
import { serveParent } from '../lib/child.js'
import { runLoad, type LoadOptions } from './http-load.js'

serveParent(async (message) => ({ result: await runLoad(message.options as LoadOptions) }))
process.send?.({ type: 'ready' })
