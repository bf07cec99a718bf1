/**
 * @supolka/codemode-executor: runs programs that language models write in V8 isolates.
 */

// First: below the Node floor the import fails with one sentence naming it (node-floor.ts).
import './require-node-floor.ts';

export type { ToolFunction } from '@supolka/codemode-protocol';
export type {
  CodeModeConnector,
  CodeModeExecuteOptions,
  CodeModeFns,
  CodeModeProvider,
  CodeModeProviders,
  CodeModeResult,
} from './codemode/contract.ts';
export * as codeModeTexts from './codemode/errors.ts';
export { CLOUDFLARE_WORKERS_SPECIFIER, registerCloudflareWorkersStub } from './codemode/node-hooks.ts';
export { sanitizeToolName } from './codemode/sanitize.ts';
export type { ClaimStore, MemoryClaimStoreOptions } from './durable/claims.ts';
export { MemoryClaimStore } from './durable/claims.ts';
export type {
  DurabilityOptions,
  DurableExecuteResult,
  PausedRun,
  ResumeAnswers,
} from './durable/durability.ts';
export { DurableKeyError, type DurableTokenCode, DurableTokenError } from './durable/errors.ts';
export type { PendingCall } from './durable/journal.ts';
export { type DurableKey, DurableKeyRing, type DurableKeyRingOptions } from './durable/keys.ts';
export {
  type DurableCallContext,
  durableCall,
  type PauseRequest,
  PauseSignal,
  pause,
} from './durable/pause.ts';
export { REPLAY_DIVERGED } from './durable/replay-texts.ts';
export type { ResumeAnswer } from './durable/start.ts';
export type { BindingField } from './durable/texts.ts';
export {
  DEFAULT_CHILD_EXEC_ARGV,
  DEFAULT_CHILD_RSS_LIMIT,
  DEFAULT_GRACE,
  DEFAULT_HEARTBEAT_INTERVAL,
  DEFAULT_HEARTBEAT_TIMEOUT,
  DEFAULT_KILL_TIMEOUT,
  DEFAULT_MAX_CHILD_AGE,
  DEFAULT_MAX_EXECUTIONS_PER_CHILD,
  DEFAULT_MAX_RETAINED_PER_CHILD,
  DEFAULT_QUEUE_LIMIT,
  DEFAULT_START_TIMEOUT,
} from './executor/defaults.ts';
export type { DiscardResult } from './executor/durable-runs.ts';
export {
  type ExecuteOptions,
  type HandleName,
  IsolateExecutor,
  PRINCIPAL_LIMIT,
  type WireHost,
} from './executor/isolate-executor.ts';
export { type IsolateExecutorOptions, OptionError, type OutboundSetting } from './executor/options.ts';
export type { HostProvider, IsolateExecuteRequest, RequestHost } from './executor/request.ts';
export { pauseWallClock, toolSignal } from './executor/tool-context.ts';
export {
  defaultWallClockLimit,
  executionPastWallClockMessage,
  invocationPastWallClockMessage,
} from './executor/wall-clock.ts';
export type {
  AllowedPackage,
  BundledPackage,
  BundledSubpath,
  PackageBundle,
  SubpathFormat,
} from './packages/bundle.ts';
export type { ChildPhase, ChildStats, PoolEvent, PoolStats } from './pool/events.ts';
export type { OutboundFunction } from './pool/execution.ts';
export {
  MAX_NESTING_DEPTH,
  NESTING_TOO_DEEP_MESSAGE,
  PARENT_ENDED_REASON,
} from './pool/nested-executions.ts';
// Types only: the in-process Sandbox and the engine probes load isolated-vm, so they are exported
// from the subpath '@supolka/codemode-executor/sandbox' (src/sandbox/index.ts), never from here.
export type { DispatchFunction } from './sandbox/dispatch.ts';
export type { EngineReport } from './sandbox/isolate.ts';
export type { ExecuteResult } from './sandbox/sandbox.ts';
export {
  type DescribedProvider,
  type DescribedTools,
  type DescribeToolsOptions,
  describeTools,
  type ToolDefinition,
  type ToolNamespace,
} from './tool-schemas/describe-tools.ts';
export { VALIDATION_TIMEOUT } from './tool-schemas/schema-check.ts';
export * as describeToolsTexts from './tool-schemas/texts.ts';
