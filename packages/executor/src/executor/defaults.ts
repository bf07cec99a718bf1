/**
 * The executor's own defaults: values that are not part of the wire contract. The protocol's
 * limits (packages/protocol/src/limits.ts) hold everything a caller can see.
 */

/** Headroom past a run's timeout for the engine's own timer and the host race (docs/sandbox.md). */
export const DEFAULT_GRACE = 1000;
