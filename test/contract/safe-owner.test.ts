/**
 * A 2-of-3 Safe (the real Safe contracts, compiled from the npm package) takes over the settlement
 * contract through the two-step transfer, then changes the base fee through a proposal two owners sign,
 * all with `npm run admin` as an operator runs it: owners sign with `sign-safe-tx` from the proposal's
 * files (the transaction rebuilt and shown, never a bare hash); one signature is refused, by the command
 * and by the Safe itself; the data service and the explorer, running all along, pick up the new fee; and
 * a payment signed before the change still settles for exactly the amount its payer signed.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { encodeFunctionData, recoverAddress, zeroAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { safeAbi, safeTxTypedData } from '../../src/chain/safe/index.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { dataServiceOptionsFromEnv } from '../../src/config/data-service-options.js'
import { deriveLocalKey } from '../../src/config/local-keys.js'
import { startDataService, type RunningDataService } from '../../src/processor/data-service/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { getJson, startTestExplorer, waitFor, type TestExplorer, scriptArgs } from '../../src/devnet/testing/index.js'
import { deploySafe } from '../helpers/safe.js'
import { checkTxBuilderBatch } from './tx-builder-shape.js'
import { setupContractFixture, type ContractFixture, type TransferArgs } from './fixture.js'

const run = promisify(execFile)
const ownerKeys = [0, 1, 2].map((i) => deriveLocalKey('safe-owner', i))
const owners = ownerKeys.map((key) => privateKeyToAccount(key))

interface Proposal {
  to: Hex
  data: Hex
  changes: { setting: string; current: string; next: string }[]
  batchFile: string
  safe: { address: Hex; nonce: string; threshold: string; safeTxHash: Hex }
}

describe('a 2-of-3 Safe as the contract owner', () => {
  let f: ContractFixture
  let safe: Hex
  let dataService: RunningDataService
  let explorer: TestExplorer
  const dir = mkdtempSync(join(tmpdir(), 'safe-owner-'))
  const deploymentPath = join(dir, 'deployment.json')

  /** `npm run admin` as a child process: its exit code, stdout and stderr. */
  async function admin(args: string[], env: Record<string, string> = {}) {
    try {
      const { stdout, stderr } = await run(process.execPath, [...scriptArgs('scripts/admin.ts'), ...args, '--deployment', deploymentPath], {
        env: { ...process.env, ...env },
      })
      return { code: 0, stdout, stderr }
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string }
      return { code: e.code, stdout: e.stdout, stderr: e.stderr }
    }
  }
  const ok = async (args: string[], env?: Record<string, string>) => {
    const result = await admin(args, env)
    assert.equal(result.code, 0, result.stderr)
    return result.stdout
  }
  /** The proposal's --json output, also kept in `<command>.proposal.json` beside its batch file `<command>.json`. */
  const propose = async (args: string[]) => {
    const json = await ok([...args, '--json', '--out', join(dir, `${args[0]}.json`)])
    writeFileSync(proposalFile(args[0]!), json)
    return JSON.parse(json) as Proposal
  }
  const proposalFile = (command: string) => join(dir, `${command}.proposal.json`)
  /** `sign-safe-tx` with a proposal file (and `--nonce` for a batch file): the signature it prints. */
  const signByCli = async (key: Hex, file: string, nonce?: string) => (await ok(['sign-safe-tx', file, ...(nonce ? ['--nonce', nonce] : [])], { ADMIN_PRIVATE_KEY: key })).trim() as Hex

  before(async () => {
    f = await setupContractFixture()
    writeFileSync(deploymentPath, JSON.stringify(f.chain.deployment))
    safe = await deploySafe({ publicClient: f.publicClient, rpcUrl: f.chain.rpcUrl, deployer: f.stranger, owners: owners.map((o) => o.address), threshold: 2 })
    const env = {
      RPC_URL: f.chain.rpcUrl,
      SETTLEMENT_CONTRACT: f.settlement,
      START_BLOCK: String(f.chain.deployment.startBlock),
      POLL_INTERVAL_MS: '50',
      LOG_LEVEL: 'error',
    }
    dataService = await startDataService(dataServiceOptionsFromEnv({ ...env, DATA_SERVICE_PORT: '0' }), { log: createLogger('silent') })
    explorer = await startTestExplorer(f.chain)
  })
  after(async () => {
    await dataService?.stop()
    await explorer?.stop()
    await f?.chain.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('becomes the owner in two steps: transfer-ownership by the key, accept-ownership proposed and executed by the Safe', async () => {
    await ok(['transfer-ownership', safe])
    assert.match(await ok(['info']), new RegExp(`pending owner +${safe}`))
    assert.equal((await f.read<Hex>({ functionName: 'owner' })).toLowerCase(), f.owner.address.toLowerCase())

    // The pending owner is a Safe: the command proposes by itself, at the Safe's next nonce.
    const proposal = await propose(['accept-ownership'])
    assert.equal(proposal.safe.address, safe)
    assert.equal(proposal.safe.nonce, '0')
    assert.equal(proposal.safe.threshold, '2')
    assert.deepEqual(proposal.changes, [{ setting: 'owner', current: f.owner.address.toLowerCase(), next: safe }])
    checkTxBuilderBatch(JSON.parse(readFileSync(proposal.batchFile, 'utf8')), { chainId: 31337, safe, to: f.settlement, data: proposal.data, method: 'acceptOwnership' })

    // One owner signs from the batch file (the nonce given), the other from the --json output.
    const signatures = await Promise.all([signByCli(ownerKeys[0]!, proposal.batchFile, '0'), signByCli(ownerKeys[2]!, proposalFile('accept-ownership'))])
    const out = await ok(['accept-ownership', '--execute', '--signatures', signatures.join(',')])
    assert.match(out, new RegExp(`the Safe ${safe} executed acceptOwnership`))
    assert.equal((await f.read<Hex>({ functionName: 'owner' })).toLowerCase(), safe)
    assert.equal(await f.read<Hex>({ functionName: 'pendingOwner' }), zeroAddress)
  })

  let signedBefore: TransferArgs
  let feeProposal: Proposal

  it('a base fee change is proposed with the current and new values; the key alone can no longer send it', async () => {
    // Signed (both signatures) while the base fee is still 2.50, submitted only after the change.
    signedBefore = await f.transferArgs({ payer: f.payers[3]!, principal: 20_000_000n })
    assert.equal(signedBefore[2], 22_500_000n)

    feeProposal = await propose(['set-base-fee', '3000000'])
    assert.deepEqual(feeProposal.changes, [{ setting: 'base fee', current: '2.50 USDC, 2.50 EURC (2500000 units)', next: '3.00 USDC, 3.00 EURC (3000000 units)' }])
    assert.equal(feeProposal.safe.nonce, '1')
    assert.equal(feeProposal.data, encodeFunctionData({ abi: [{ type: 'function', name: 'setBaseFeeAmount', inputs: [{ name: 'newBaseFeeAmount', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' }], args: [3_000_000n] }))
    checkTxBuilderBatch(JSON.parse(readFileSync(feeProposal.batchFile, 'utf8')), { chainId: 31337, safe, to: f.settlement, data: feeProposal.data, method: 'setBaseFeeAmount' })
    // The human form names the change, the Safe transaction hash and the next step.
    const text = await ok(['set-base-fee', '3000000', '--out', join(dir, 'fee-text.json')])
    assert.match(text, /base fee +2\.50 USDC, 2\.50 EURC \(2500000 units\) +3\.00 USDC, 3\.00 EURC \(3000000 units\)/)
    assert.ok(text.includes(feeProposal.safe.safeTxHash), text)
    assert.match(text, /--execute --nonce 1 --signatures/)
    await f.expectRevert(f.owner, { functionName: 'setBaseFeeAmount', args: [1n] }, 'OwnableUnauthorizedAccount', [f.owner.address])
  })

  it('sign-safe-tx shows the transaction it rebuilt and signs it as SafeTx typed data; a bare hash or a file that does not hold together is refused', async () => {
    const signed = await admin(['sign-safe-tx', proposalFile('set-base-fee')], { ADMIN_PRIVATE_KEY: ownerKeys[0]! })
    assert.equal(signed.code, 0, signed.stderr)
    // The signer sees the call decoded, the change with the contract's current value, the Safe, nonce and hash.
    assert.match(signed.stderr, /set-base-fee \(setBaseFeeAmount\(3000000\)\) through the Safe/)
    assert.match(signed.stderr, /base fee +2\.50 USDC, 2\.50 EURC \(2500000 units\) +3\.00 USDC, 3\.00 EURC \(3000000 units\)/)
    assert.match(signed.stderr, /Safe nonce +1\n/)
    assert.ok(signed.stderr.includes(feeProposal.safe.safeTxHash), signed.stderr)
    assert.equal((await recoverAddress({ hash: feeProposal.safe.safeTxHash, signature: signed.stdout.trim() as Hex })).toLowerCase(), owners[0]!.address.toLowerCase())

    const refused = async (args: string[], key: Hex, why: RegExp) => {
      const result = await admin(['sign-safe-tx', ...args], { ADMIN_PRIVATE_KEY: key })
      assert.equal(result.code, 1, result.stdout)
      assert.equal(result.stdout, '')
      assert.match(result.stderr.trim(), why)
    }
    await refused([feeProposal.safe.safeTxHash], ownerKeys[0]!, /^admin: sign-safe-tx signs no bare hash/)
    await refused([feeProposal.batchFile], ownerKeys[0]!, /^admin: a batch file does not hold the Safe nonce: add --nonce <n>/)
    await refused([proposalFile('set-base-fee'), '--nonce', '0'], ownerKeys[0]!, /^admin: --nonce 0 differs from the proposal's Safe nonce 1$/)
    await refused([proposalFile('set-base-fee')], deriveLocalKey('not-an-owner', 0), /is not an owner of the Safe/)

    // The data swapped for another fee, the stated hash kept: the fields no longer hash to it.
    const json = JSON.parse(readFileSync(proposalFile('set-base-fee'), 'utf8'))
    const otherFee = encodeFunctionData({ abi: [{ type: 'function', name: 'setBaseFeeAmount', inputs: [{ name: 'newBaseFeeAmount', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' }], args: [1n] })
    json.batch.transactions[0].data = otherFee
    writeFileSync(join(dir, 'tampered.json'), JSON.stringify(json))
    await refused([join(dir, 'tampered.json')], ownerKeys[0]!, /^admin: the proposal states Safe transaction hash 0x[0-9a-f]{64}, but its fields hash to 0x[0-9a-f]{64}: it is not signed$/)
    // A call that is not an owner operation of the settlement contract is not signed, whatever it is.
    json.batch.transactions[0] = { ...json.batch.transactions[0], to: f.usdc, data: encodeFunctionData({ abi: stablecoinAbi, functionName: 'transfer', args: [f.stranger.address, 1n] }) }
    writeFileSync(join(dir, 'other-call.json'), JSON.stringify(json))
    await refused([join(dir, 'other-call.json')], ownerKeys[0]!, /^admin: the proposal's call is not an owner operation of the settlement contract/)
  })

  it('one owner signature is refused: by the command in one line, and by the Safe itself', async () => {
    const one = await signByCli(ownerKeys[1]!, proposalFile('set-base-fee'))
    const refused = await admin(['set-base-fee', '3000000', '--execute', '--signatures', one])
    assert.equal(refused.code, 1)
    assert.equal(refused.stderr.trim(), `admin: the Safe ${safe} needs 2 owner signatures, got 1`)
    // Past the command's check, the Safe refuses it on chain (GS020: signatures data too short).
    const exec = encodeFunctionData({
      abi: safeAbi,
      functionName: 'execTransaction',
      args: [f.settlement, 0n, feeProposal.data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, one],
    })
    await assert.rejects(f.publicClient.call({ account: f.stranger, to: safe, data: exec }), /GS020/)
    assert.equal(await f.read<bigint>({ functionName: 'baseFeeAmount' }), 2_500_000n)
  })

  it('two owner signatures execute it; the data service and the explorer pick up the new fee without a restart', async () => {
    // One owner signs the typed data itself (as a wallet would), the other the hash with the command.
    const typed = safeTxTypedData(safe, 31337, { to: f.settlement, value: 0n, data: feeProposal.data }, 1n)
    const signatures = [await owners[1]!.signTypedData(typed), await signByCli(ownerKeys[2]!, feeProposal.batchFile, '1')]
    await ok(['set-base-fee', '3000000', '--execute', '--signatures', signatures.join(',')])
    assert.equal(await f.read<bigint>({ functionName: 'baseFeeAmount' }), 3_000_000n)

    await waitFor('the data service to serve the new base fee', async () => (await getJson(dataService.url, '/config')).body.baseFeeAmount === '3000000')
    const sent = await f.send(f.stranger, { functionName: 'transferWithPermit', args: await f.transferArgs({ payer: f.payers[4]! }) })
    const indexed = await waitFor('the explorer to index the new payment', async () => {
      const { status, body } = await getJson(explorer.url, `/events/${sent.transactionHash}`)
      return status === 200 && body
    })
    assert.equal(indexed.fee, '3000000')
  })

  it('a payment signed before the change settles for exactly the amount its payer signed', async () => {
    const payer = f.payers[3]!.address
    const balance = () => f.read<bigint>({ address: f.usdc, abi: stablecoinAbi, functionName: 'balanceOf', args: [payer] })
    const before = await balance()
    const receipt = await f.send(f.stranger, { functionName: 'transferWithPermit', args: signedBefore })
    assert.equal(receipt.status, 'success')
    assert.equal(before - (await balance()), signedBefore[2])
    const { body } = await waitFor('the explorer to index the earlier-signed payment', async () => {
      const answer = await getJson(explorer.url, `/events/${receipt.transactionHash}`)
      return answer.status === 200 && answer
    })
    // The total is the signed one; the contract splits it with the fee in force when it settles.
    assert.equal(BigInt(body.amount) + BigInt(body.fee), 22_500_000n)
    assert.equal(body.fee, '3000000')
  })
})
