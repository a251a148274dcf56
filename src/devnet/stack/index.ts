/** The whole product in one process, as `npm start` runs it. */
export * from './run-stack.js'
