/**
 * How many runs' imports a sandbox holds ready in the isolate it prepares ahead (warm-packages.ts),
 * in a file of its own so IsolateExecutor's options can resolve the setting in the caller's process
 * without loading the engine.
 */

/** Runs a specifier stays warm after the last one that imported it, unless the caller names another window. */
export const WARM_WINDOW = 16;

/**
 * The window `warmPackages` names (SandboxOptions, IsolateExecutorOptions): true (or left out) is
 * WARM_WINDOW runs, false is none, a whole number is that many runs.
 */
export function warmWindow(setting: boolean | number | undefined): number {
  if (setting === undefined || setting === true) return WARM_WINDOW;
  return setting === false ? 0 : setting;
}
