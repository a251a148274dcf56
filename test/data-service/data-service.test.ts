/**
 * The data service on a real anvil chain, over real sockets: every value against what the contract and
 * the tokens report (read here independently with viem and the compiled ABIs), HTTP caching and CORS,
 * problem bodies, readiness and metrics, refresh on admin events, a failing node, and the
 * `npm run data-service` process.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { after, before, test } from 'node:test'
import { encodeAbiParameters, encodeFunctionData, keccak256, toHex, type Hex } from 'viem'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import { deployStablecoin } from '../../src/devnet/deploy/deploy-stablecoin.js'
import { createTxSender, type TxSender } from '../../src/chain/tx/create-tx-sender.js'
import { dataServiceOptionsFromEnv } from '../../src/config/data-service-options.js'
import { localDeployerKey } from '../../src/config/local-keys.js'
import { ConfigError } from '../../src/config/parse-env.js'
import { startDataService, type RunningDataService } from '../../src/processor/data-service/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { waitFor, startLocalChain, type LocalChain, startRpcProxy, scriptArgs } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'

const silent = createLogger('silent')
let chain: LocalChain
let service: RunningDataService
let owner: TxSender
let publicClient: ReturnType<typeof createChainClient>

function serviceEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    START_BLOCK: String(chain.deployment.startBlock),
    DATA_SERVICE_PORT: '0',
    POLL_INTERVAL_MS: '50',
    LOG_LEVEL: 'error',
    ...overrides,
  }
}

before(async () => {
  chain = await startLocalChain()
  publicClient = createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 50 })
  owner = await createTxSender({ publicClient, privateKey: localDeployerKey })
  service = await startDataService(dataServiceOptionsFromEnv(serviceEnv()), { log: silent })
})
after(async () => {
  await service?.stop()
  await chain?.stop()
})

interface Answer {
  status: number
  headers: Headers
  text: string
  body: any
}

async function request(path: string, init: RequestInit = {}, base = service.url): Promise<Answer> {
  const response = await fetch(base + path, init)
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined }
}

/** The contract's settings and its allowed tokens as the chain reports them, read without the service's code. */
async function onChain() {
  const contract = chain.deployment.settlementContract
  const read = (functionName: 'feeRecipient' | 'baseFeeAmount' | 'maxAcquiringFee' | 'acquiringPrice') =>
    publicClient.readContract({ address: contract, abi: settlementAbi, functionName })
  const events = await publicClient.getContractEvents({ address: contract, abi: settlementAbi, eventName: 'AcquiringAllowedTokenAdded', fromBlock: 0n })
  const addresses = [...new Set(events.map((e) => (e.args.token as Hex).toLowerCase() as Hex))]
  const tokens = await Promise.all(
    addresses.map(async (address) => {
      const token = (functionName: 'symbol' | 'name' | 'decimals' | 'eip712Domain' | 'DOMAIN_SEPARATOR') =>
        publicClient.readContract({ address, abi: stablecoinAbi, functionName })
      const [symbol, name, decimals, domain, separator] = await Promise.all(
        (['symbol', 'name', 'decimals', 'eip712Domain', 'DOMAIN_SEPARATOR'] as const).map(token),
      )
      return {
        address,
        symbol,
        name,
        decimals,
        version: (domain as readonly unknown[])[2],
        domainSeparator: (separator as Hex).toLowerCase(),
      }
    }),
  )
  return {
    settlementContract: contract.toLowerCase(),
    feeRecipient: ((await read('feeRecipient')) as Hex).toLowerCase(),
    baseFeeAmount: String(await read('baseFeeAmount')),
    maxAcquiringFee: String(await read('maxAcquiringFee')),
    acquiringPrice: String(await read('acquiringPrice')),
    tokens,
  }
}

/** Sends an admin call as the contract owner; resolves with the block it was mined in. */
async function sendAsOwner(data: Hex): Promise<number> {
  const hash = await owner.send({ to: chain.deployment.settlementContract, data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  assert.equal(receipt.status, 'success')
  return Number(receipt.blockNumber)
}

test('/config and /tokens carry what the contract and the tokens report', async () => {
  const [config, tokens, expected] = await Promise.all([request('/config'), request('/tokens'), onChain()])
  assert.equal(config.status, 200)
  assert.equal(tokens.status, 200)
  assert.match(config.headers.get('content-type') ?? '', /^application\/json/)
  assert.deepEqual(config.body, {
    settlementContract: expected.settlementContract,
    chainId: 31337,
    walletGatewayUrl: 'ws://127.0.0.1:4000/ws',
    feeRecipient: expected.feeRecipient,
    explorerUrl: 'http://127.0.0.1:4001',
    checkoutWidgetUrl: 'http://127.0.0.1:4004',
    baseFeeAmount: expected.baseFeeAmount,
    maxAcquiringFee: expected.maxAcquiringFee,
    acquiringPrice: expected.acquiringPrice,
    supportedTokens: expected.tokens,
  })
  assert.deepEqual(tokens.body, { tokens: expected.tokens })
  assert.deepEqual(
    expected.tokens.map((t) => t.symbol),
    chain.deployment.tokens.map((t) => t.symbol),
  )
})

test('every domainSeparator is the token DOMAIN_SEPARATOR() and the hash of its EIP-712 domain', async () => {
  const { body } = await request('/tokens')
  assert.ok(body.tokens.length >= 2)
  for (const token of body.tokens) {
    const declared = await publicClient.readContract({ address: token.address, abi: stablecoinAbi, functionName: 'DOMAIN_SEPARATOR' })
    assert.equal(token.domainSeparator, declared.toLowerCase())
    // EIP-712 by hand: keccak(typeHash ‖ keccak(name) ‖ keccak(version) ‖ chainId ‖ verifyingContract).
    const typeHash = keccak256(toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'))
    const encoded = encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
      [typeHash, keccak256(toHex(token.name)), keccak256(toHex(token.version)), 31337n, token.address],
    )
    assert.equal(keccak256(encoded), declared)
  }
})

test('/health: ok, the chain id and the block the directory was read at', async () => {
  const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }))
  const { status, body, headers } = await request('/health')
  assert.equal(status, 200)
  assert.equal(headers.get('cache-control'), 'no-store')
  assert.equal(body.status, 'ok')
  assert.equal(body.chainId, 31337)
  assert.equal(typeof body.blockNumber, 'number')
  assert.ok(body.blockNumber >= chain.deployment.startBlock && body.blockNumber <= head, `${body.blockNumber} within ${chain.deployment.startBlock}..${head}`)
  assert.equal(body.lastError, undefined)
})

test('/ready is 200 ready and /metrics is Prometheus text with the process, the directory block and answers by route', async () => {
  const ready = await request('/ready')
  assert.deepEqual([ready.status, ready.body, ready.headers.get('cache-control')], [200, { status: 'ready' }, 'no-store'])
  const response = await fetch(`${service.url}/metrics`)
  const samples = checkPrometheusText({ status: response.status, headers: response.headers, body: await response.text() }, 'data_service')
  assert.ok(samples.get('data_service_directory_block_number')! >= chain.deployment.startBlock)
  assert.ok(samples.get('data_service_http_requests_total{route="/ready",status="200"}')! >= 1)
})

test('a strong ETag that hashes the body; If-None-Match answers 304 without a body', async () => {
  for (const path of ['/config', '/tokens']) {
    const first = await request(path)
    const etag = first.headers.get('etag')!
    assert.equal(etag, `"${createHash('sha256').update(first.text).digest('base64url')}"`)
    assert.equal(first.headers.get('cache-control'), 'public, max-age=5')

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await request(path, { headers: { 'if-none-match': ifNoneMatch } })
      assert.equal(again.status, 304, ifNoneMatch)
      assert.equal(again.text, '')
      assert.equal(again.headers.get('content-length'), null)
      assert.equal(again.headers.get('etag'), etag)
      assert.equal(again.headers.get('cache-control'), 'public, max-age=5')
      assert.equal(again.headers.get('access-control-allow-origin'), '*')
    }
    const changed = await request(path, { headers: { 'if-none-match': '"something-else"' } })
    assert.equal(changed.status, 200)
    assert.equal(changed.text, first.text)
  }
})

test('CORS is open: every answer allows any origin, and a preflight is answered', async () => {
  for (const path of ['/config', '/tokens', '/health', '/nope']) {
    const { headers } = await request(path, { headers: { origin: 'https://shop.example' } })
    assert.equal(headers.get('access-control-allow-origin'), '*', path)
  }
  const { headers } = await request('/config', { headers: { origin: 'https://shop.example' } })
  assert.match(headers.get('access-control-expose-headers') ?? '', /etag/i)

  const preflight = await request('/config', {
    method: 'OPTIONS',
    headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
  })
  assert.equal(preflight.status, 204)
  assert.equal(preflight.headers.get('content-length'), null)
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*')
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bGET\b/)
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /if-none-match/i)
})

test('an unknown route is a 404 problem, another method a 405 problem with Allow', async () => {
  const missing = await request('/configuration')
  assert.equal(missing.status, 404)
  assert.match(missing.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.equal(missing.body.status, 404)
  assert.equal(missing.body.title, 'Not Found')
  assert.match(missing.body.type, /not-found$/)
  assert.match(missing.body.detail, /\/configuration/)

  for (const method of ['POST', 'PUT', 'DELETE']) {
    const refused = await request('/config', { method, body: method === 'DELETE' ? undefined : '{}' })
    assert.equal(refused.status, 405, method)
    assert.equal(refused.headers.get('allow'), 'GET, OPTIONS')
    assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/)
    assert.equal(refused.body.status, 405)
    assert.match(refused.body.detail, new RegExp(method))
  }
})

test('setBaseFeeAmount by the owner shows in /config without a restart, under a new ETag', async () => {
  const before = await request('/config')
  const oldEtag = before.headers.get('etag')!
  const fee = BigInt(before.body.baseFeeAmount) + 1_234_567n
  const minedIn = await sendAsOwner(encodeFunctionData({ abi: settlementAbi, functionName: 'setBaseFeeAmount', args: [fee] }))

  const updated = await waitFor('the new base fee in /config', async () => {
    const answer = await request('/config')
    return answer.body.baseFeeAmount === fee.toString() && answer
  })
  assert.equal(updated.body.baseFeeAmount, (await onChain()).baseFeeAmount)
  assert.notEqual(updated.headers.get('etag'), oldEtag)
  assert.equal((await request('/config', { headers: { 'if-none-match': oldEtag } })).status, 200)
  const { body: health } = await request('/health')
  assert.ok(health.blockNumber >= minedIn, `read at ${health.blockNumber}, the change is in ${minedIn}`)
})

test('fee recipient, maximum acquirer fee and a newly allowed token show too', async () => {
  const token = await deployStablecoin({ publicClient, sender: owner, name: 'Test Franc', symbol: 'TCHF' })
  const recipient = chain.deployment.recipients[0]!
  await sendAsOwner(encodeFunctionData({ abi: settlementAbi, functionName: 'setFeeRecipient', args: [recipient] }))
  await sendAsOwner(encodeFunctionData({ abi: settlementAbi, functionName: 'setMaxAcquiringFee', args: [777n] }))
  await sendAsOwner(encodeFunctionData({ abi: settlementAbi, functionName: 'addAcquiringAllowedToken', args: [token.address] }))

  const config = await waitFor('the admin changes in /config', async () => {
    const answer = await request('/config')
    return answer.body.supportedTokens.some((t: { symbol: string }) => t.symbol === 'TCHF') && answer.body
  })
  const expected = await onChain()
  assert.equal(config.feeRecipient, recipient.toLowerCase())
  assert.equal(config.maxAcquiringFee, '777')
  assert.deepEqual(config.supportedTokens, expected.tokens)
  assert.deepEqual((await request('/tokens')).body, { tokens: expected.tokens })
  const added = config.supportedTokens.find((t: { symbol: string }) => t.symbol === 'TCHF')
  assert.equal(added.address, token.address.toLowerCase())
  assert.equal(added.name, 'Test Franc')
  assert.equal(added.decimals, 6)
})

test('a failing node: the last directory is still served, /health reports the error and /ready is 503 until it recovers', async () => {
  const proxy = await startRpcProxy(chain.rpcUrl)
  const logs: { level: string; msg: string }[] = []
  const logger = createLogger('debug', {}, (line) => {
    logs.push(JSON.parse(line))
    return true
  })
  const viaProxy = await startDataService(dataServiceOptionsFromEnv(serviceEnv({ RPC_URL: proxy.url })), { log: logger })
  const logged = (msg: RegExp) => logs.filter((l) => msg.test(l.msg))
  try {
    const before = await request('/config', {}, viaProxy.url)
    proxy.down = true
    const health = await waitFor('lastError in /health', async () => {
      const { body } = await request('/health', {}, viaProxy.url)
      return body.lastError !== undefined && body
    })
    assert.equal(health.status, 'ok')
    assert.ok(!String(health.lastError).includes('\n'))
    const notReady = await request('/ready', {}, viaProxy.url)
    assert.equal(notReady.status, 503)
    assert.equal(notReady.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.match(notReady.body.detail, /^the node at RPC_URL fails .*; the directory was last read at block \d+$/)
    const during = await request('/config', {}, viaProxy.url)
    assert.equal(during.status, 200)
    assert.equal(during.text, before.text)
    await waitFor('several failed polls', () => logged(/failed again/).length >= 3)
    assert.deepEqual(logged(/refresh failed/).map((l) => l.level), ['warn', ...logged(/failed again/).map(() => 'debug')], 'one warning per outage')
    proxy.down = false
    await waitFor('lastError to clear', async () => (await request('/health', {}, viaProxy.url)).body.lastError === undefined)
    assert.equal((await request('/ready', {}, viaProxy.url)).status, 200)
    assert.equal(logged(/recovered/).length, 1)
  } finally {
    await viaProxy.stop()
    await proxy.stop()
  }
})

test('a node serving another chain than CHAIN_ID stops start-up with one line', async () => {
  const error = await startDataService(dataServiceOptionsFromEnv(serviceEnv({ CHAIN_ID: '8453' })), { log: silent }).then(
    () => assert.fail('started against the wrong chain'),
    (e: unknown) => e,
  )
  assert.ok(error instanceof ConfigError)
  assert.equal(error.message, `CHAIN_ID is 8453 but RPC_URL (${new URL(chain.rpcUrl).host}) serves chain 31337`)
})

test('npm run data-service serves until SIGTERM, then stops cleanly', async () => {
  const child = spawn(process.execPath, scriptArgs('scripts/data-service.ts'), {
    env: { ...process.env, ...serviceEnv({ LOG_LEVEL: 'info' }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  try {
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const url = await waitFor('the listening line', () => {
      const line = stderr.split('\n').find((l) => l.includes('"data service listening"'))
      return line ? (JSON.parse(line) as { url: string }).url : undefined
    })
    assert.equal((await request('/health', {}, url)).body.status, 'ok')
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    const [code] = await exited
    assert.equal(code, 0)
    assert.match(stderr, /"data service stopped"/)
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
})
