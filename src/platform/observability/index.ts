/**
 * Structured JSON logs and Prometheus metrics.
 */
export * from './logger.js'
export * from './metrics.js'
export * from './service-metrics.js'
export * from './services.js'
