/**
 * Who signed a 32-byte digest, for every signature the gateway and the submitter check (envelopes,
 * permit and binding signatures): secp256k1 public-key recovery in libsecp256k1, through the
 * `secp256k1` package's prebuilt native binding (~70 µs per signature on the 2-core machine, against
 * ~2 ms for viem's pure-JavaScript recovery). node:crypto cannot do this: its ECDSA verify always hashes
 * the data itself (no prehashed keccak digests) and its ECDH point multiplication is as slow as the JS.
 *
 * Same outcome as viem's `recoverAddress` for every input it accepts (test/gateway/recover-signer.test.ts
 * compares them): `v` 0 or 27 is recovery id 0, 1 or 28 is 1; r and s in [1, n−1], high s accepted, the
 * digest taken modulo n. Anything else — another `v`, r or s out of range, no curve point with x = r, the
 * point at infinity — recovers to no signer. (viem would read a `v` ≥ 35 as an EIP-155 transaction `v`;
 * a typed-data signature never has one, and the contracts' ecrecover refuses it, so it is refused here.)
 */
import secp256k1 from 'secp256k1'
import { keccak256, type Hex } from 'viem'

export interface SignatureParts {
  v: number
  r: Hex
  s: Hex
}

const RECOVERY_ID = new Map([[0, 0], [1, 1], [27, 0], [28, 1]])
const WORD = /^0x[0-9a-fA-F]{64}$/

/** The signer's address in lower case, or undefined when the signature recovers to no key. */
export function recoverSigner(digest: Hex, sig: SignatureParts): Hex | undefined {
  const recoveryId = RECOVERY_ID.get(sig.v)
  if (recoveryId === undefined || !WORD.test(digest) || !WORD.test(sig.r) || !WORD.test(sig.s)) return undefined
  const compact = Buffer.from(sig.r.slice(2) + sig.s.slice(2), 'hex')
  let publicKey: Uint8Array
  try {
    publicKey = secp256k1.ecdsaRecover(compact, recoveryId, Buffer.from(digest.slice(2), 'hex'), false)
  } catch {
    return undefined
  }
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`
}
