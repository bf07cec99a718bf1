/**
 * The executor's own defaults: values that are not part of the wire contract. The protocol's
 * limits (packages/protocol/src/limits.ts) hold everything a caller can see.
 */

/**
 * Headroom past a run's timeout for the engine's own timer and the host race (docs/sandbox.md).
 * Defined by the sandbox, which applies it for callers of Sandbox itself; the executor resolves it
 * once in options.ts and hands it down.
 */
export { DEFAULT_GRACE } from '../sandbox/bounds/grace.ts';

// The pool's defaults (docs/pool.md says why each is what it is).

/** Executions waiting for a child before execute answers OVERLOADED at once. */
export const DEFAULT_QUEUE_LIMIT = 256;

/** Executions a child serves before it is retired, once idle. */
export const DEFAULT_MAX_EXECUTIONS_PER_CHILD = 1000;

/** How long a child serves before it is retired, once idle (ms). */
export const DEFAULT_MAX_CHILD_AGE = 30 * 60_000;

/** How often each child is asked for its health (ms). */
export const DEFAULT_HEARTBEAT_INTERVAL = 1000;

/** How long a heartbeat may go unanswered before the child is ended and replaced (ms). */
export const DEFAULT_HEARTBEAT_TIMEOUT = 5000;

/**
 * How long a new child may take to report healthy (ms): the engine probes may take
 * ENGINE_PROBE_TIMEOUT (5 s), and the startup snapshot is made before that.
 */
export const DEFAULT_START_TIMEOUT = 15_000;

/** How long a child has to exit after SIGTERM before SIGKILL follows (ms). */
export const DEFAULT_KILL_TIMEOUT = 2000;

/**
 * Resident memory past which an idle child is recycled (MB). Native memory an isolate used goes
 * back to the system only with its process; a child at rest holds 70 to 95 MB (docs/pool.md, "Memory").
 */
export const DEFAULT_CHILD_RSS_LIMIT = 1024;

/** Retained executions one child may hold at once: each keeps an isolate alive. */
export const DEFAULT_MAX_RETAINED_PER_CHILD = 16;

/**
 * Node flags of every child: each creates isolates from the runtime snapshot (adr/0002), and its
 * own heap's young generation stays at 1 MB a semi-space. Without the cap V8 grows the child's
 * young generation to 16 MB and more while modules load and messages pass, and keeps it resident
 * at rest (7 MB fresh, 25 MB after mixed executions; docs/pool.md, "Memory"). The cap binds the
 * child's own isolate only: isolated-vm clears the flag once it loads, so every sandbox isolate
 * keeps the young generation its memory limit gives it.
 */
export const DEFAULT_CHILD_EXEC_ARGV: readonly string[] = Object.freeze([
  '--no-node-snapshot',
  '--no-wasm-code-gc',
  '--max-semi-space-size=1',
]);
