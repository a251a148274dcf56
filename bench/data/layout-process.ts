/** Prints the store layout fingerprint of the code on disk now (a fresh process: the harness's own modules may be older). */
import { layoutFingerprint } from './bench-store.js'
import { DEFAULT_SHAPE, SyntheticChain } from './synthetic-chain.js'

console.log(await layoutFingerprint(new SyntheticChain({ ...DEFAULT_SHAPE, seed: Number(process.argv[2] ?? 1) })))
