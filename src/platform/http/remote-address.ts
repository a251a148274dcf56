/** The client's IP address of a uWS request, as text: the key of per-address limits. */
import type { HttpResponse } from 'uWebSockets.js'

export const remoteAddress = (res: HttpResponse) => Buffer.from(res.getRemoteAddressAsText()).toString()
