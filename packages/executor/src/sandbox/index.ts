/**
 * @supolka/codemode-executor/sandbox: the in-process pieces, one isolate per execution in the
 * caller's own process. Importing this entry loads isolated-vm into that process, which is why it
 * is a subpath of its own: the main entry (IsolateExecutor, the server, the CLI) runs isolates only
 * in the children the pool forks, and a caller that loads another copy of isolated-vm, or none,
 * must be able to use it (docs/sandbox.md, "Entry points").
 */

// First, as in the main entry: below the Node floor the import fails with one sentence naming it.
import '../require-node-floor.ts';

export type { DispatchFunction } from './dispatch.ts';
export {
  assertEngineServesSandbox,
  assertNoNodeSnapshot,
  ENGINE_PROBES,
  type EngineReport,
} from './isolate.ts';
export { BoundedCodeCache, type CodeCache } from './modules/code-cache.ts';
export { PACKAGE_CODE_CACHE_BUDGET } from './modules/packages.ts';
export {
  type ExecuteResult,
  type ExecutionSettled,
  Sandbox,
  type SandboxExecuteRequest,
  type SandboxHost,
  type SandboxOptions,
  type SandboxWire,
} from './sandbox.ts';
export { WARM_UP_SHARE, WARM_UP_TIMEOUT, WARM_WINDOW } from './setup/warm-packages.ts';
