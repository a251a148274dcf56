/**
 * A snapshot that cannot be written or restored: a manifest that is not one, a copy that broke off or
 * does not match its manifest, a source that does not answer. Only a source's silence or its 5xx may
 * pass on a retry; the rest needs the operator.
 */
import { BaseError } from '../../errors/index.js'

export class SnapshotError extends BaseError {
  override name = 'SnapshotError'
}
