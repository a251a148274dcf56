/**
 * Issue 38 item 7: an outside wallet pays a charge from docs/checkout.md alone ("Paying from any wallet").
 * The two EIP-712 documents are read from that page, filled in for a real charge of the engine (real anvil,
 * PostgreSQL, explorer, CA, mutual TLS), and signed by anvil's own `eth_signTypedData_v4` for one of its
 * unlocked dev accounts — a wallet that is not our code. Another account sends `transferWithPermit` with
 * them, and the charge settles. The signatures equal those our SDK's signer makes with the same key.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { createPublicClient, createWalletClient, http, parseSignature, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { settlementAbi, stablecoinAbi } from '../../src/chain/index.js'
import { anvilKeys } from '../../src/config/local-keys.js'
import { payWithPermitTypes } from '../../src/wire/typed-data.js'
import { signPermitPair } from '../../src/wire/sign-permit-pair.js'
import { startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0' })
  merchant = await f.createMerchant()
})
after(() => f?.stop())

/** The ```json blocks of the docs' section on paying from any wallet, in order. */
function documentedTypedData(): any[] {
  const page = readFileSync(new URL('../../docs/checkout.md', import.meta.url), 'utf8')
  const section = page.slice(page.indexOf('## Paying from any wallet'), page.indexOf('\n## ', page.indexOf('## Paying from any wallet') + 1))
  return [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1]!))
}

/** `{ v, r, s }` with v 27 or 28, as the contract takes it. */
const split = (signature: Hex) => {
  const { r, s, yParity } = parseSignature(signature)
  return { v: 27 + yParity, r, s }
}

test('the documented typed data, signed by a wallet that is not ours (anvil eth_signTypedData_v4), pays a charge', async () => {
  const [permitDoc, bindingDoc] = documentedTypedData()
  assert.equal(permitDoc.primaryType, 'Permit')
  assert.equal(bindingDoc.primaryType, 'PayWithPermitParams')

  const { rpcUrl, deployment } = f.chain
  const publicClient = createPublicClient({ chain: foundry, transport: http(rpcUrl) })
  const outsider = privateKeyToAccount(anvilKeys[2]!)
  const charge = await f.createCharge(merchant)
  const token = charge.token as Hex
  // The outside wallet holds the tokens it pays with (from a devnet payer) and no key our code uses.
  const funder = createWalletClient({ chain: foundry, transport: http(rpcUrl), account: privateKeyToAccount(deployment.payerKeys[0]!) })
  await publicClient.waitForTransactionReceipt({ hash: await funder.writeContract({ address: token, abi: stablecoinAbi, functionName: 'transfer', args: [outsider.address, BigInt(charge.totalToPay)] }) })

  // What the page says to read: the token's eip712Domain(), its nonces(owner), the charge's fields.
  const [, name, version, chainId, verifyingContract] = await publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'eip712Domain' })
  const nonce = await publicClient.readContract({ address: token, abi: stablecoinAbi, functionName: 'nonces', args: [outsider.address] })
  const deadline = BigInt(Math.floor(Date.parse(charge.deadline) / 1000))
  const permit = { owner: outsider.address, spender: deployment.settlementContract, value: charge.totalToPay, nonce: String(nonce), deadline: String(deadline) }
  const ref = `0x${charge.orderReference.slice(2)}${charge.acquirerId.slice(2)}` as Hex
  permitDoc.domain = { ...permitDoc.domain, name, version, chainId: Number(chainId), verifyingContract }
  permitDoc.message = permit
  bindingDoc.domain = { ...bindingDoc.domain, chainId: Number(chainId), verifyingContract: deployment.settlementContract }
  bindingDoc.message = { token, beneficiary: charge.beneficiary, ref, permitParams: permit }

  const sign = (doc: unknown) => f.rpc<Hex>('eth_signTypedData_v4', [outsider.address, JSON.stringify(doc)])
  const [first, second] = [split(await sign(permitDoc)), split(await sign(bindingDoc))]

  const ours = await signPermitPair({
    payer: outsider,
    tokenDomain: { name, version, chainId: Number(chainId), verifyingContract },
    permit: { owner: outsider.address, spender: deployment.settlementContract, value: BigInt(charge.totalToPay), nonce, deadline },
    settlementContract: deployment.settlementContract,
    binding: { types: payWithPermitTypes, primaryType: 'PayWithPermitParams', message: { token, beneficiary: charge.beneficiary, ref, permitParams: { ...permit, value: BigInt(charge.totalToPay), nonce, deadline } } },
  })
  assert.deepEqual({ v1: first.v, r1: first.r, s1: first.s, v2: second.v, r2: second.r, s2: second.s }, ours, 'the same signatures as our SDK signs')

  const sender = createWalletClient({ chain: foundry, transport: http(rpcUrl), account: privateKeyToAccount(anvilKeys[3]!) })
  const hash = await sender.writeContract({
    address: deployment.settlementContract,
    abi: settlementAbi,
    functionName: 'transferWithPermit',
    args: [token, outsider.address, BigInt(charge.totalToPay), deadline, first.v, first.r, first.s, second.v, second.r, second.s, charge.beneficiary as Hex, ref],
  })
  assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, 'success')
  const settled = await f.waitForStatus(merchant, charge.id, 'settled')
  assert.equal(settled.settlement?.txHash, hash)
})
