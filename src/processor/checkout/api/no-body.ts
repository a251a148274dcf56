/** The cancel and deactivate routes take no body; an empty JSON object is tolerated for clients that always send one. */
import { ProblemError } from '../../../platform/http/index.js'

export function refuseBody(body: unknown, action = 'cancel'): void {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
    throw new ProblemError(400, `${action} takes no body (or an empty JSON object)`)
  }
}
