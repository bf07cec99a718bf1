/**
 * @supolka/codemode-executor: runs programs that language models write in V8 isolates.
 */

export { DEFAULT_GRACE } from './executor/defaults.ts';
export { BoundedCodeCache, type CodeCache } from './sandbox/code-cache.ts';
export type { DispatchFunction } from './sandbox/dispatch.ts';
export {
  assertEngineServesSandbox,
  assertNoNodeSnapshot,
  ENGINE_PROBES,
  type EngineReport,
} from './sandbox/isolate.ts';
export {
  type ExecuteResult,
  type ExecutionSettled,
  Sandbox,
  type SandboxExecuteRequest,
  type SandboxOptions,
} from './sandbox/sandbox.ts';
