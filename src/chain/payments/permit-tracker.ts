/**
 * Hands out ERC-2612 permit nonces per (token, owner) and caches each token's EIP-712 domain, so a payer
 * can have many signed payments in flight at once. The chain is read once per pair; after that nonces are
 * counted locally. A permit only succeeds with the nonce the token expects next, so callers must submit in
 * the order they took nonces (see send-payment.ts) and `forget` a pair after a failure.
 */
import type { Hex, PublicClient } from 'viem'
import { stablecoinAbi } from '../abi/stablecoin-abi.js'
import type { TokenDomain } from '../../wire/index.js'
import { BaseError } from '../../errors/index.js'

export interface PermitTracker {
  tokenDomain(token: Hex): Promise<TokenDomain>
  /** Reads the pair's nonce from the chain unless it is already tracked. */
  load(token: Hex, owner: Hex): Promise<void>
  /** The next nonce of a loaded pair; synchronous so it can be paired with a transaction nonce. */
  take(token: Hex, owner: Hex): bigint
  /** Drops the pair, so the next `load` re-reads the chain (after a failed or dropped permit). */
  forget(token: Hex, owner: Hex): void
}

export function createPermitTracker(publicClient: PublicClient): PermitTracker {
  const domains = new Map<string, Promise<TokenDomain>>()
  const nonces = new Map<string, bigint>()
  const loading = new Map<string, Promise<void>>()
  const key = (token: Hex, owner: Hex) => `${token.toLowerCase()}:${owner.toLowerCase()}`

  return {
    tokenDomain(token) {
      const id = token.toLowerCase()
      let domain = domains.get(id)
      if (!domain) {
        domain = readTokenDomain(publicClient, token)
        domains.set(id, domain)
        domain.catch(() => domains.delete(id))
      }
      return domain
    },
    async load(token, owner) {
      const id = key(token, owner)
      if (nonces.has(id)) return
      let pending = loading.get(id)
      if (!pending) {
        pending = publicClient
          .readContract({ address: token, abi: stablecoinAbi, functionName: 'nonces', args: [owner] })
          .then((nonce) => {
            nonces.set(id, nonce)
          })
          .finally(() => loading.delete(id))
        loading.set(id, pending)
      }
      await pending
    },
    take(token, owner) {
      const id = key(token, owner)
      const nonce = nonces.get(id)
      if (nonce === undefined) throw new BaseError(`permit nonce of ${owner} on ${token} not loaded`)
      nonces.set(id, nonce + 1n)
      return nonce
    },
    forget(token, owner) {
      nonces.delete(key(token, owner))
    },
  }
}

/** Reads the token's own EIP-712 domain (ERC-5267) rather than assuming name and version. */
async function readTokenDomain(publicClient: PublicClient, token: Hex): Promise<TokenDomain> {
  const [, name, version, chainId, verifyingContract] = await publicClient.readContract({
    address: token,
    abi: stablecoinAbi,
    functionName: 'eip712Domain',
  })
  return { name, version, chainId: Number(chainId), verifyingContract: verifyingContract.toLowerCase() as Hex }
}
