/** The wallet gateway (PROCESSOR.md §2): wallets' signed messages over WebSocket, submissions into the shared queue. */
export { startGateway, type GatewayServices, type RunningGateway } from './start-gateway.js'
export * from './input/recover-signer.js'
export { createMessageReader } from './input/read-client-message.js'
