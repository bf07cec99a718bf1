/**
 * The sandbox's one default that is not part of the wire contract: the headroom past a run's
 * timeout for the engine's own timer and the host race (docs/sandbox.md). It is defined here, at
 * the layer that uses it, so the sandbox imports nothing from the executor above it; the executor
 * re-exports it from executor/defaults.ts, where the sandbox's specification names it (docs/sandbox.md).
 */
export const DEFAULT_GRACE = 1000;
