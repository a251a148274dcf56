/**
 * The well-known private keys anvil funds on every local chain (mnemonic "test test … junk").
 * They are public knowledge, so anything signed with them off the local chain id can be stolen:
 * `assertKeyAllowed` is the one gate every piece that takes a key passes through.
 */
import { keccak256, toHex, type Hex } from 'viem'
import { ConfigError } from './parse-env.js'

export const LOCAL_CHAIN_ID = 31337

export const anvilKeys: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
]

/** Roles on the local chain: the deployer owns the contracts and receives fees, the relayer submits. */
export const localDeployerKey = anvilKeys[0] as Hex
export const localRelayerKey = anvilKeys[1] as Hex

/**
 * Deterministic extra keys for local test accounts (payers, acquirers, recipients), so a devnet
 * restart reproduces the same addresses. Derived from a public string: as unsafe as the anvil keys.
 */
export function deriveLocalKey(role: string, index: number): Hex {
  return keccak256(toHex(`settlement-devnet/${role}/${index}`))
}

export function assertKeyAllowed(chainId: number, privateKey: Hex): void {
  if (chainId === LOCAL_CHAIN_ID) return
  if (anvilKeys.includes(privateKey.toLowerCase() as Hex)) {
    throw new ConfigError(`refusing a well-known anvil test key on chain ${chainId}: set a real key (only chain ${LOCAL_CHAIN_ID} may use them)`)
  }
}
