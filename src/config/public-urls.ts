/**
 * Where the public processor pieces are reached from outside, as the data service announces them and a
 * payment session hands them to wallets. Behind a domain the gateway is `wss://<GATEWAY_DOMAIN>/ws`
 * (TLS ends at the proxy in front of it); without one, each piece's local port on 127.0.0.1.
 */
import { ConfigError, intSetting, urlSetting, type Env } from './parse-env.js'

export interface PublicUrls {
  walletGatewayUrl: string
  explorerUrl: string
  checkoutWidgetUrl: string
}

/** A host name with an optional port; no scheme, path or credentials. */
const DOMAIN = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/i

export function publicUrlsFromEnv(env: Env): PublicUrls {
  const domain = env.GATEWAY_DOMAIN?.trim()
  if (domain && !DOMAIN.test(domain)) throw new ConfigError(`GATEWAY_DOMAIN must be a host name such as pay.example.com (no scheme or path), got "${domain}"`)
  // A port is read only when its URL is not given: port 0 (any free port) cannot be announced.
  const local = (name: string, fallback: number) => `127.0.0.1:${intSetting(env, name, fallback, 1, 65535)}`
  const httpUrl = (name: string, portName: string, port: number) =>
    env[name]?.trim() ? urlSetting(env, name, undefined).replace(/\/+$/, '') : `http://${local(portName, port)}`
  return {
    walletGatewayUrl: domain ? `wss://${domain.toLowerCase()}/ws` : `ws://${local('GATEWAY_PORT', 4000)}/ws`,
    explorerUrl: httpUrl('EXPLORER_URL', 'EXPLORER_PORT', 4001),
    checkoutWidgetUrl: httpUrl('CHECKOUT_WIDGET_URL', 'WIDGET_PORT', 4004),
  }
}
