/** The project's error root, `BaseError`: a short message, details, a cause, and whether a retry can help. */
export * from './base-error.js'
