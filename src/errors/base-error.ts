/**
 * The project's error root is defined in `wire/` so that the SDK, which may not import `errors/`, is in
 * the same family; this module is where the rest of `src/` takes it from.
 */
export { BaseError, causeChain, isRetryable, walkCauses, type BaseErrorOptions } from '../wire/index.js'
