/**
 * The explorer's TypeScript SDK (SPEC §4), published as `settlement-explorer/sdk`. Browser-safe: nothing
 * here imports a Node module statically.
 */
export { ExplorerClient } from './explorer-client.js'
export { ExplorerApiError, ExplorerError, ExplorerLiveError, ExplorerNetworkError, ExplorerTimeoutError } from './errors.js'
// The root of every error the SDK throws, and whether asking again can help (for errors of any origin).
export { BaseError, isRetryable } from '../wire/index.js'
export type {
  AmountsBySymbol,
  EventPage,
  EventsQuery,
  ExportFormat,
  ExportQuery,
  ExplorerClientOptions,
  Hex,
  IndexedHead,
  ProblemDetails,
  ReconnectOptions,
  RequestOptions,
  SeriesBucket,
  SeriesQuery,
  Settlement,
  SettlementContext,
  SettlementFilter,
  SettlementHandler,
  Stats,
  StatsFilter,
  StatsSeries,
  SubscribeOptions,
  Subscription,
  TokenStats,
} from './types.js'
export { WalletClient, type FinalStatus, type WalletClientOptions } from './wallet/wallet-client.js'
export { GatewayError } from './wallet/gateway-error.js'
export type { PaymentSession, SessionToken } from './wallet/payment-session.js'
export type { ServerMessage as GatewayServerMessage, SubmissionStatusPush, Transfer } from '../wire/index.js'
export { isFinalStatus } from '../wire/index.js'
