/** Worker pools: ending them safely. */
export * from './loaded-workers.js'
