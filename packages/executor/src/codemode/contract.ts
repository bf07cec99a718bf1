/**
 * The Code Mode executor contract, as `@cloudflare/codemode` (0.5.x) defines its `Executor`:
 * `execute(code, providersOrFns, options?)` resolving to `{ result, error?, logs? }`. These are this
 * package's own declarations of it, written so that `IsolateExecutor` is assignable to the
 * package's `Executor` without depending on its types (its root types import `cloudflare:workers`).
 */
import type { EnvelopeCode, ErrorKind, PausedRun } from '@supolka/codemode-protocol/wire';

/** A namespace's tools by name, each called with the argument list the program passed. */
export type CodeModeFns = Readonly<Record<string, (...args: never[]) => unknown>>;

/** `ResolvedProvider`: a namespace the program calls tools through, `name.tool(...)`. */
export interface CodeModeProvider {
  readonly name: string;
  /** Keyed by the tools' raw names; the program calls each under its sanitized name. */
  readonly fns: CodeModeFns;
  /** Source run in the program's scope once every namespace exists, e.g. to add local helpers. */
  readonly prelude?: string;
}

/** A provider list, or (deprecated in the contract) a bare record of fns served as `codemode`. */
export type CodeModeProviders = readonly CodeModeProvider[] | CodeModeFns;

/** `ConnectorBinding`: a namespace whose every call goes to `binding.callTool(tool, firstArgument)`. */
export interface CodeModeConnector {
  readonly name: string;
  readonly binding: { callTool(method: string, args: unknown): unknown };
}

/** The contract's third argument. Keys it does not know are ignored, as the contract's own executor does. */
export interface CodeModeExecuteOptions {
  readonly connectors?: readonly CodeModeConnector[];
  /** This executor's addition: aborting ends the run at once, with code CANCELLED. */
  readonly signal?: AbortSignal;
  /** This executor's addition: whom the execution is for (ExecuteOptions.callerId). */
  readonly callerId?: string;
  /**
   * This executor's addition: a durable run (docs/durable.md), which a tool may pause with pause();
   * the result then carries `paused`, and `resume(token, answers, code, providersOrFns, options)`
   * finishes it. Needs the executor's `durable` option; `createCodeTool` never passes it, so the
   * contract's own runs are never durable (docs/codemode.md, "Tools that need approval").
   */
  readonly durable?: boolean;
  /** This executor's addition: whom a durable run is for (ExecuteOptions.principal). */
  readonly principal?: string;
}

/**
 * The contract's result: `logs` as strings, a warning prefixed `[warn] ` and an error `[error] `.
 * `code` is this executor's addition: present only when the executor ended the run (TIMEOUT,
 * MEMORY_LIMIT, BAD_REQUEST, ...), as in every envelope it returns; a durable run's or a resume's
 * may carry a durable code (TOKEN_FORGED, REPLAY_DIVERGED, ...).
 */
export interface CodeModeResult {
  result: unknown;
  error?: string;
  code?: EnvelopeCode;
  logs: string[];
  /** This executor's too: what kind of error user code met, beside an `error` with no `code` (docs/protocol.md). */
  errorKind?: ErrorKind;
  /** The thrown error's name, as the program set it. */
  errorName?: string;
  /** The program's own frames, at the positions the model wrote. */
  errorStack?: string;
  /** The failed tool call's namespace, tool and position in the model's code (docs/protocol.md). */
  errorProvider?: string;
  errorTool?: string;
  errorAt?: string;
  /** The JSON of a thrown object that is no Error. */
  errorJson?: string;
  /** Never set by this form, which takes statements as they are; the envelope's type has it. */
  hint?: string;
  /** What the result or a tool call's arguments lost in serialization. */
  notes?: string[];
  /** A durable run that paused (docs/durable.md): why, the pending calls and the token. */
  paused?: PausedRun;
}
