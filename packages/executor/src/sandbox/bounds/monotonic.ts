/**
 * A monotonic clock in milliseconds, for the host's own intervals (a run's clock, a worker's
 * deadline, the memory guard's bounds). It reads process.hrtime, not `performance.now()`: in a
 * process started with --no-node-snapshot, as every pool child is, the first read of the
 * `performance` global loads Node's perf_hooks and the modules behind it, about 2 ms that a child
 * paid inside its first execution (issue 28; docs/pool.md, "Cold start"). Only differences of its
 * values mean anything: its origin is not performance.timeOrigin.
 */
export function monotonicNow(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
}
