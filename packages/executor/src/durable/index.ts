/**
 * Durable executions' token: what the pause and resume code imports. The package root exports
 * only what a user constructs or catches (the key ring, the claim store, the errors); sealing and
 * opening stay inside the package, behind the executor that will call them.
 */
export type { DurableBinding, DurableVersions } from './binding.ts';
export { CANONICAL_DEPTH_LIMIT, canonicalHash, canonicalJson } from './canonical.ts';
export {
  type ClaimStore,
  DEFAULT_CLAIM_CAPACITY,
  MemoryClaimStore,
  type MemoryClaimStoreOptions,
} from './claims.ts';
export { DURABLE_TOKEN_CODES, DurableKeyError, type DurableTokenCode, DurableTokenError } from './errors.ts';
export { type DurableKey, DurableKeyRing, type DurableKeyRingOptions } from './keys.ts';
export * from './limits.ts';
export type { BindingField } from './texts.ts';
export {
  DurableTokens,
  type DurableTokensOptions,
  OpenedToken,
  type SealedToken,
  type TokenContents,
} from './token.ts';
