/**
 * The settlement contract's administrative calls as `npm run admin` names them: each parsed from its
 * arguments into the call (function, arguments), who must send it (the owner, the pending owner, or the
 * holder of an internal balance), and a summary of the change with its current and new values, read
 * from the contract so that whoever signs sees what they change.
 */
import { encodeFunctionData, getAbiItem, type AbiFunction, type Hex, type PublicClient } from 'viem'
import { settlementAbi } from '../../chain/index.js'
import { displayAmount, type Deployment } from '../../wire/index.js'
import { addressFlag, amountArg, amountFlag, FlagError } from '../../platform/cli/index.js'

export const ownerCommandNames = [
  'set-base-fee',
  'set-acquiring-price',
  'set-max-acquiring-fee',
  'set-fee-recipient',
  'allow-token',
  'withdraw',
  'transfer-ownership',
  'accept-ownership',
] as const
export type OwnerCommand = (typeof ownerCommandNames)[number]
export const isOwnerCommand = (command: string | undefined): command is OwnerCommand => ownerCommandNames.includes(command as OwnerCommand)

export type SenderRole = 'owner' | 'pending owner' | 'balance holder'

export interface ChangeLine {
  setting: string
  current: string
  next: string
}

export interface OwnerOperation {
  command: OwnerCommand
  functionName: string
  args: readonly unknown[]
  method: AbiFunction
  to: Hex
  value: bigint
  data: Hex
  role: SenderRole
  /** Who the contract will see as the sender. */
  sender: Hex
  changes: ChangeLine[]
}

export interface OperationContext {
  publicClient: PublicClient
  deployment: Deployment
  /** The balance holder for `withdraw` (the Safe, or the signer); unused by the other commands. */
  holder?: Hex
}

const FEE_DENOMINATOR = 10_000n

/** Parses and describes one owner command; throws a one-line FlagError on bad arguments. */
export async function ownerOperation(command: OwnerCommand, args: string[], ctx: OperationContext): Promise<OwnerOperation> {
  const { publicClient, deployment } = ctx
  const address = deployment.settlementContract
  const read = <T>(functionName: string, fnArgs: readonly unknown[] = []): Promise<T> =>
    publicClient.readContract({ address, abi: settlementAbi, functionName, args: fnArgs } as never) as Promise<T>
  const inTokens = (amount: bigint) => amountInTokens(deployment, amount)
  const percent = (bps: bigint) => `${(Number(bps) / 100).toFixed(2)} % (${bps} basis points)`
  const lower = (value: Hex) => value.toLowerCase() as Hex
  const ownerSender = async () => lower(await read<Hex>('owner'))

  const build = (functionName: string, fnArgs: readonly unknown[], role: SenderRole, sender: Hex, changes: ChangeLine[]): OwnerOperation => {
    const method = getAbiItem({ abi: settlementAbi, name: functionName as never, args: fnArgs as never }) as AbiFunction
    const data = encodeFunctionData({ abi: [method], functionName, args: fnArgs } as never)
    return { command, functionName, args: fnArgs, method, to: address, value: 0n, data, role, sender, changes }
  }

  switch (command) {
    case 'set-base-fee':
    case 'set-acquiring-price': {
      const next = amountArg(args[0], 'amount', sharedDecimals(deployment))
      const [getter, setter, label] =
        command === 'set-base-fee' ? (['baseFeeAmount', 'setBaseFeeAmount', 'base fee'] as const) : (['acquiringPrice', 'setAcquiringPrice', 'acquiring pack price'] as const)
      const current = await read<bigint>(getter)
      return build(setter, [next], 'owner', await ownerSender(), [{ setting: label, current: inTokens(current), next: inTokens(next) }])
    }
    case 'set-max-acquiring-fee': {
      const next = amountFlag(args[0], 'basis-points')
      if (next > FEE_DENOMINATOR) throw new FlagError(`the maximum acquiring fee is at most ${FEE_DENOMINATOR} basis points (100 %), got ${next}`)
      const current = await read<bigint>('maxAcquiringFee')
      return build('setMaxAcquiringFee', [next], 'owner', await ownerSender(), [{ setting: 'max acquiring fee', current: percent(current), next: percent(next) }])
    }
    case 'set-fee-recipient': {
      const next = addressFlag(args[0], 'the fee recipient')
      const current = lower(await read<Hex>('feeRecipient'))
      return build('setFeeRecipient', [next], 'owner', await ownerSender(), [{ setting: 'fee recipient', current, next }])
    }
    case 'allow-token': {
      const token = addressFlag(args[0], 'the token')
      const allowed = await read<boolean>('acquiringAllowedTokens', [token])
      return build('addAcquiringAllowedToken', [token], 'owner', await ownerSender(), [
        { setting: `acquiring packs payable in ${token}`, current: allowed ? 'yes' : 'no', next: 'yes' },
      ])
    }
    case 'withdraw': {
      const token = findToken(deployment, args[0])
      const amount = amountArg(args[1], 'amount', deployment.tokens.find((t) => t.address === token)?.decimals)
      if (!ctx.holder) throw new FlagError('withdraw needs the balance holder: ADMIN_PRIVATE_KEY, or --safe <address> to propose it')
      const [balance] = await read<bigint[]>('getBalances', [token, [ctx.holder]])
      const decimals = deployment.tokens.find((t) => t.address === token)?.decimals ?? 0
      const show = (value: bigint) => `${displayAmount(value, decimals)} (${value} units)`
      const after = (balance ?? 0n) - amount
      return build('withdraw', [token, amount], 'balance holder', ctx.holder, [
        { setting: `internal balance of ${ctx.holder} in ${token}`, current: show(balance ?? 0n), next: after < 0n ? `short by ${show(-after)}` : show(after) },
      ])
    }
    case 'transfer-ownership': {
      const next = addressFlag(args[0], 'the new owner')
      const [owner, pending] = await Promise.all([ownerSender(), read<Hex>('pendingOwner')])
      return build('transferOwnership', [next], 'owner', owner, [
        { setting: 'pending owner', current: lower(pending), next },
        { setting: 'owner (unchanged until the new owner runs accept-ownership)', current: owner, next: owner },
      ])
    }
    case 'accept-ownership': {
      const [owner, pending] = await Promise.all([ownerSender(), read<Hex>('pendingOwner').then(lower)])
      if (BigInt(pending) === 0n) throw new FlagError(`no ownership transfer is pending on ${address}: the owner (${owner}) runs transfer-ownership <address> first`)
      return build('acceptOwnership', [], 'pending owner', pending, [{ setting: 'owner', current: owner, next: pending }])
    }
  }
}

/** The decimals every deployment token shares (a fee in token units then means one amount), else undefined. */
function sharedDecimals(deployment: Deployment): number | undefined {
  const all = new Set(deployment.tokens.map((t) => t.decimals))
  return all.size === 1 ? [...all][0] : undefined
}

/** The contract keeps amounts in each token's smallest units: shown for every deployment token. */
export function amountInTokens(deployment: Deployment, amount: bigint): string {
  return `${deployment.tokens.map((t) => `${displayAmount(amount, t.decimals)} ${t.symbol}`).join(', ')} (${amount} units)`
}

export function findToken(deployment: Deployment, symbolOrAddress: string | undefined): Hex {
  const wanted = symbolOrAddress?.toLowerCase()
  const token = deployment.tokens.find((t) => t.symbol.toLowerCase() === wanted || t.address === wanted)
  if (token) return token.address
  if (symbolOrAddress && /^0x[0-9a-fA-F]{40}$/.test(symbolOrAddress)) return symbolOrAddress.toLowerCase() as Hex
  throw new FlagError(`token "${symbolOrAddress ?? ''}" is neither a deployment token symbol nor an address`)
}
