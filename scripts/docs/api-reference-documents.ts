/** The documents the API reference is rendered from, as the servers serve them. */
import { readFileSync } from 'node:fs'
import { explorerOpenApi } from '../../src/explorer/index.js'
import { checkoutOpenApi } from '../../src/processor/checkout/index.js'
import { renderApiReference } from './render-api-reference.js'

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }

export const apiReference = () =>
  renderApiReference([
    { document: explorerOpenApi(version), servedAt: '`GET /openapi.json` on the explorer (http://127.0.0.1:4001)' },
    { document: checkoutOpenApi(), servedAt: '`GET /openapi.json` on the merchant API (https://127.0.0.1:4003, mutual TLS)' },
  ])
