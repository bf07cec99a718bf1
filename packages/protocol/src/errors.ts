/**
 * Every error text a user of the executor can read, defined once, and the error classes that
 * carry them with a stable `code`. Callers branch on `code` (or `name` across a boundary),
 * never on message text and never on `instanceof` across a process or isolate boundary.
 */
import { echo, echoList } from './echo.ts';

/**
 * Codes an envelope or a fault carries when the executor, not user code, ended the work.
 * `BAD_REQUEST` and `PAYLOAD_TOO_LARGE` are the caller's faults; the rest are the system's.
 */
export const FAULT_CODES = [
  'BAD_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'HANDLES_CLOSED',
  'HANDLE_NOT_FOUND',
  'TIMEOUT',
  'MEMORY_LIMIT',
  'CANCELLED',
  'OVERLOADED',
  'WORKER_LOST',
  'INTERNAL',
] as const;
export type FaultCode = (typeof FAULT_CODES)[number];

/**
 * Codes a durable execution's envelope may carry besides the fault codes (docs/durable.md,
 * "Refusals"): a resume whose token is refused, and a resume whose program diverged from its
 * journal. Only a request that asked for durability (`durable`, or a resume) can meet them, and a
 * server refuses that to a client of a version before 3, so no older client ever reads one.
 */
export const DURABLE_TOKEN_CODES = [
  /** The text is not a token of this format: wrong prefix, alphabet, version or field bounds. */
  'TOKEN_MALFORMED',
  /** The token names no key this executor holds, or its authentication tag does not verify. */
  'TOKEN_FORGED',
  /** The token is authentic and past its expiry. */
  'TOKEN_EXPIRED',
  /** The token is authentic and bound to another request, runtime, engine version or principal. */
  'TOKEN_MISMATCH',
  /** A claim store says the token has already resumed its run. */
  'TOKEN_REPLAYED',
  /** The token's text is past MAX_TOKEN_SIZE, or a journal would seal into one that is. */
  'TOKEN_TOO_LARGE',
  /** The journal holds more entries than the executor's maxJournalLength. */
  'JOURNAL_TOO_LONG',
  /** The claim store failed (full, or unreachable), so whether the token was used is not known. */
  'CLAIM_UNAVAILABLE',
] as const;
export type DurableTokenCode = (typeof DURABLE_TOKEN_CODES)[number];

/** The code of a resume that ended because its program did not make the journal's calls again. */
export const REPLAY_DIVERGED = 'REPLAY_DIVERGED';

/** Every code an envelope may carry: the faults, then the durable codes. */
export const ENVELOPE_CODES = [...FAULT_CODES, ...DURABLE_TOKEN_CODES, REPLAY_DIVERGED] as const;
export type EnvelopeCode = (typeof ENVELOPE_CODES)[number];

export function isEnvelopeCode(value: unknown): value is EnvelopeCode {
  return typeof value === 'string' && (ENVELOPE_CODES as readonly string[]).includes(value);
}

/** Faults a caller causes and can fix by changing what it sends. */
export const CALLER_FAULT_CODES: readonly FaultCode[] = [
  'BAD_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'HANDLES_CLOSED',
  'HANDLE_NOT_FOUND',
];

/**
 * Codes of errors that user code meets inside a run. They reach the envelope's `error` text and
 * never its `code`, because the program, not the executor, decided what to do about them.
 */
export const IN_RUN_ERROR_CODES = [
  'TOOL_NOT_FOUND',
  'MODULE_NOT_FOUND',
  'OUTBOUND_DISABLED',
  'EXECUTION_COMPLETED',
] as const;
export type InRunErrorCode = (typeof IN_RUN_ERROR_CODES)[number];

export type ErrorCode = EnvelopeCode | InRunErrorCode;

/**
 * What kind of error a run that user code ended met, as the envelope's `errorKind` says it. The
 * host sets it from what it observed itself (a compile that failed, a module the linker refused, a
 * tool call it answered, a fetch it refused), never from a value the program threw, so a program
 * cannot make its own throw read as anything but `thrown`. Present on an error envelope without
 * `code`; docs/protocol.md, "The result envelope", says what each value means.
 */
export const ERROR_KINDS = [
  /** The program or a module of the map does not parse. */
  'syntax',
  /** The program uses TypeScript that type erasure alone cannot turn into JavaScript (an enum, a namespace). */
  'typescript',
  /** The program threw or rejected, or reported an error of its own through the completion accessor. */
  'thrown',
  /** A tool call named a tool no provider serves. */
  'tool-not-found',
  /** A tool call failed: the caller's function threw, or the call broke a bound of the boundary. */
  'tool-failed',
  /** An import named a module the module map does not have. */
  'module-not-found',
  /** fetch was called in an execution whose outbound access is disabled. */
  'outbound-disabled',
  /**
   * A tool call arrived after its execution had completed. The error the program meets records it;
   * no execution's own envelope carries it today, since that envelope has gone out by then.
   */
  'execution-completed',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === 'string' && (ERROR_KINDS as readonly string[]).includes(value);
}

/** The most UTF-16 code units of a thrown error's name the envelope's `errorName` carries. */
export const ERROR_NAME_LIMIT = 100;
/** The most frames the envelope's `errorStack` lists, and the most code units of one frame's function name. */
export const ERROR_STACK_FRAME_LIMIT = 20;
export const ERROR_FRAME_NAME_LIMIT = 200;
/** The longest `errorStack` text; frames past it are left out whole. */
export const ERROR_STACK_LIMIT = 16_384;

/**
 * The most UTF-16 code units of a failed tool call's provider and tool name the envelope's
 * `errorProvider` and `errorTool` carry (a tool's name is whatever property the program read).
 */
export const ERROR_TOOL_LIMIT = 256;
/** The longest `errorAt` (`FILE:LINE:COLUMN`, FILE a module key as the request spelled it); a longer one is left out. */
export const ERROR_AT_LIMIT = 1024;
/**
 * The most UTF-16 code units of a thrown value's JSON the envelope's `errorJson` carries. Like
 * `errorName`, it is cut inside the isolate, so a longer text is a prefix (no longer JSON).
 */
export const ERROR_JSON_LIMIT = 1024;
/** The longest `hint` a receiver accepts; the executor's own hints are a few hundred characters. */
export const HINT_LIMIT = 1024;
/** The most entries of the envelope's `notes`, the last of them the overflow note when more were lost. */
export const NOTE_LIMIT = 10;
/** The longest note; a longer path in one is cut. */
export const NOTE_TEXT_LIMIT = 512;

/**
 * What the envelope says of an error user code met, beside its text, in the order it writes them
 * (errorDetails): all absent beside a `code`, which says the rest. The sandbox copies these from a
 * run's outcome, and the hot check of a result message reads them; one list, so neither gains a
 * field the other lacks (errors.test.ts holds it to the envelope's schema).
 */
export const USER_ERROR_DETAILS = [
  'errorKind',
  'errorName',
  'errorStack',
  'errorProvider',
  'errorTool',
  'errorAt',
  'errorJson',
  'hint',
] as const;
export type UserErrorDetail = (typeof USER_ERROR_DETAILS)[number];

/** The longest text each of the user error's details may be: all but errorKind, one of ERROR_KINDS. */
export const USER_ERROR_TEXT_LIMITS: Readonly<Record<Exclude<UserErrorDetail, 'errorKind'>, number>> = {
  errorName: ERROR_NAME_LIMIT,
  errorStack: ERROR_STACK_LIMIT,
  errorProvider: ERROR_TOOL_LIMIT,
  errorTool: ERROR_TOOL_LIMIT,
  errorAt: ERROR_AT_LIMIT,
  errorJson: ERROR_JSON_LIMIT,
  hint: HINT_LIMIT,
};

export function isFaultCode(value: unknown): value is FaultCode {
  return typeof value === 'string' && (FAULT_CODES as readonly string[]).includes(value);
}

// Texts pinned word for word by the sandbox's specification (docs/sandbox.md).

/** What a tool call or an outbound call that arrives after its run settled meets. */
export const EXECUTION_COMPLETED_MESSAGE = 'Execution has already completed.';

/** What a generated proxy throws when a dispatch answered with something other than an envelope. */
export const DISPATCH_OUTSIDE_ENVELOPE_MESSAGE = 'The dispatch answered outside the result envelope.';

/** What the bindings script throws in an isolate that was not restored from the runtime snapshot. */
export const MISSING_SNAPSHOT_MESSAGE =
  'The isolate was created without the runtime snapshot readRuntimeSnapshot answers.';

/** The TypeError a crypto operation meets when it names a key the host does not hold. */
export const NOT_A_CRYPTO_KEY_MESSAGE = 'The provided value is not of type CryptoKey.';

/** What a crypto operation still queued when its isolate is gone fails with. */
export const EXECUTION_ENDED_MESSAGE = 'The execution has ended.';

/** workerd's text for a timer whose callback is not a function. */
export function timerCallbackMessage(method: 'setTimeout' | 'setInterval'): string {
  return `Failed to execute '${method}' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'function'.`;
}

/** The sentence a run that outlived its bound reports. */
export function executionTimeoutMessage(timeoutMs: number): string {
  return `Execution timed out at its ${timeoutMs} ms bound. Do less work per run and return the part that is already finished.`;
}

// The project's own texts.

export function memoryLimitMessage(memoryLimitMb: number): string {
  return `Execution ran out of memory at its ${memoryLimitMb} MB limit. Hold less data at once and return the part that is already finished.`;
}

export function payloadTooLargeMessage(what: string, size: number, limit: number): string {
  return `The ${what} is ${size} bytes, past the ${limit}-byte payload limit.`;
}

export function tooManyValuesMessage(what: string, limit: number): string {
  return `The ${what} holds more than ${limit} JSON values, past the value limit (VALUE_LIMIT). Send fewer values, or large data as text.`;
}

export const OUTBOUND_DISABLED_MESSAGE =
  'Outbound network access is disabled for this execution, so fetch cannot reach the network.';

export function toolNotFoundMessage(provider: string, tool: string): string {
  return `Tool ${provider}.${tool} does not exist: no provider serves it.`;
}

/**
 * The dispatch answer for a tool no provider serves: the result envelope a tool call gets, as
 * JSON, with `errorKind` beside the text so the sandbox tells it from a tool that failed.
 */
export function toolNotFoundEnvelope(provider: string, tool: string): string {
  return JSON.stringify({ error: toolNotFoundMessage(provider, tool), errorKind: 'tool-not-found' });
}

/**
 * The envelope's `hint` beside the engine's error when the object form's code is not one async
 * arrow but would run as statements (docs/protocol.md, "The entry contract"): the shape expected,
 * and the forms that take statements as they are.
 */
export const STATEMENTS_HINT =
  'The code of execute({ code }) must be one async arrow expression, optionally preceded by import declarations, such as `async () => { const x = await tools.get(); return x; }`; this code reads as statements. Wrap them in `async () => { ... }`, or send them as they are to a form that takes statements: the Code Mode form execute(code, fns), `codemode-executor run` or the MCP bridge.';

/** The envelope's `hint` when the object form's code evaluated to something other than a function. */
export const NOT_A_FUNCTION_HINT =
  "The code of execute({ code }) must be one async arrow expression, optionally preceded by import declarations, and is called once: this code's value is not a function. Write `async () => 1 + 1` for an expression, or wrap statements in `async () => { ... }`; the Code Mode form execute(code, fns), `codemode-executor run` and the MCP bridge take statements and expressions as they are.";

/**
 * `allowed` is the packages an executor allows programs to import (docs/packages.md), when it
 * allows any: the sentence names them, so the program's author knows what it may import instead.
 */
export function moduleNotFoundMessage(
  specifier: string,
  referrer: string,
  allowed?: readonly string[],
): string {
  const base = `Cannot find module '${specifier}' imported from ${referrer}: the module map has no such key`;
  if (allowed === undefined || allowed.length === 0) return `${base}.`;
  return `${base}, and it is no package this executor allows (${allowed.join(', ')}).`;
}

export function moduleKeyCollisionMessage(first: string, second: string, normalized: string): string {
  return `Module keys '${first}' and '${second}' both name the module '${normalized}'; keep one of them.`;
}

export function unsupportedModuleKindMessage(name: string): string {
  return `Module '${name}' has none of the kinds js, cjs, json, text or data.`;
}

export function handlesClosedMessage(executionId: string): string {
  return `Execution ${executionId} holds no handles: they were closed, expired, or never granted.`;
}

/** `handle` comes from whoever invoked (a remote client among them): the text repeats only its start. */
export function handleNotFoundMessage(handle: string, granted: readonly string[]): string {
  return `Handle '${echo(handle)}' was not granted; the granted handles are ${granted.join(', ')}.`;
}

export function cancelledMessage(reason?: string): string {
  return reason ? `Execution was cancelled: ${reason}` : 'Execution was cancelled by its caller.';
}

export const OVERLOADED_MESSAGE =
  'The executor is at capacity: every worker is busy and the queue is full. Retry later.';

export function workerLostMessage(cause: string): string {
  return `The worker running this execution was lost: ${cause}.`;
}

/**
 * The refusals of an execute request as a caller writes it, before its wire part reaches the schema
 * (request-parts.ts): IsolateExecutor and ExecutorClient both refuse with these.
 */
export const REQUEST_NOT_OBJECT_MESSAGE = 'The execute request must be an object with a `code` string.';
export const PROVIDERS_NOT_LIST_MESSAGE = 'Invalid execute request: providers must be a list.';
export const DISPATCH_NOT_FUNCTION_MESSAGE = 'Invalid execute request: dispatch must be a function.';
export const OUTBOUND_SETTING_MESSAGE =
  'Invalid execute request: outbound must be null (disabled), a function (proxied) or undefined (native).';

export function providerNotObjectMessage(index: number): string {
  return `Invalid execute request: providers[${index}] must be an object.`;
}

export function fnsNotObjectMessage(index: number): string {
  return `Invalid execute request: providers[${index}].fns must be an object of functions.`;
}

export function toolNotFunctionMessage(index: number, tool: string): string {
  return `Invalid execute request: providers[${index}].fns.${tool} must be a function.`;
}

/** Fields no schema knows, named by their starts (echo.ts): the schema's issue and a caller's early refusal read alike. */
export function unknownFieldsText(keys: readonly string[]): string {
  return `${echoList(keys)} ${keys.length === 1 ? 'is not a known field' : 'are not known fields'}`;
}

/** The base of every error the executor raises on purpose. */
export class CodemodeError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
  override name = 'CodemodeError';
}

export class ExecutionTimeoutError extends CodemodeError {
  override name = 'ExecutionTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super('TIMEOUT', executionTimeoutMessage(timeoutMs));
    this.timeoutMs = timeoutMs;
  }
}

export class MemoryLimitError extends CodemodeError {
  override name = 'MemoryLimitError';
  readonly memoryLimitMb: number;
  constructor(memoryLimitMb: number) {
    super('MEMORY_LIMIT', memoryLimitMessage(memoryLimitMb));
    this.memoryLimitMb = memoryLimitMb;
  }
}

export class PayloadTooLargeError extends CodemodeError {
  override name = 'PayloadTooLargeError';
  readonly what: string;
  readonly size: number;
  readonly limit: number;
  constructor(what: string, size: number, limit: number) {
    super('PAYLOAD_TOO_LARGE', payloadTooLargeMessage(what, size, limit));
    this.what = what;
    this.size = size;
    this.limit = limit;
  }
}

/**
 * A message past VALUE_LIMIT: too large by what it would decode to, counted in values instead of
 * bytes (`size` is the count the scan stopped at, past `limit`).
 */
export class TooManyValuesError extends PayloadTooLargeError {
  override name = 'TooManyValuesError';
  constructor(what: string, values: number, limit: number) {
    super(what, values, limit);
    this.message = tooManyValuesMessage(what, limit);
  }
}

export class OutboundDisabledError extends CodemodeError {
  override name = 'OutboundDisabledError';
  constructor() {
    super('OUTBOUND_DISABLED', OUTBOUND_DISABLED_MESSAGE);
  }
}

export class ToolNotFoundError extends CodemodeError {
  override name = 'ToolNotFoundError';
  readonly provider: string;
  readonly tool: string;
  constructor(provider: string, tool: string) {
    super('TOOL_NOT_FOUND', toolNotFoundMessage(provider, tool));
    this.provider = provider;
    this.tool = tool;
  }
}

export class ModuleNotFoundError extends CodemodeError {
  override name = 'ModuleNotFoundError';
  readonly specifier: string;
  readonly referrer: string;
  constructor(specifier: string, referrer: string, allowed?: readonly string[]) {
    super('MODULE_NOT_FOUND', moduleNotFoundMessage(specifier, referrer, allowed));
    this.specifier = specifier;
    this.referrer = referrer;
  }
}

export class ModuleKeyCollisionError extends CodemodeError {
  override name = 'ModuleKeyCollisionError';
  readonly keys: readonly [string, string];
  readonly normalized: string;
  constructor(first: string, second: string, normalized: string) {
    super('BAD_REQUEST', moduleKeyCollisionMessage(first, second, normalized));
    this.keys = [first, second];
    this.normalized = normalized;
  }
}

export class UnsupportedModuleKindError extends CodemodeError {
  override name = 'UnsupportedModuleKindError';
  readonly moduleName: string;
  constructor(moduleName: string) {
    super('BAD_REQUEST', unsupportedModuleKindMessage(moduleName));
    this.moduleName = moduleName;
  }
}

/** A provider list validateProviders refused; the message names the provider and the rule. */
export class InvalidProviderError extends CodemodeError {
  override name = 'InvalidProviderError';
  constructor(message: string) {
    super('BAD_REQUEST', message);
  }
}

export class HandlesClosedError extends CodemodeError {
  override name = 'HandlesClosedError';
  readonly executionId: string;
  constructor(executionId: string) {
    super('HANDLES_CLOSED', handlesClosedMessage(executionId));
    this.executionId = executionId;
  }
}

export class HandleNotFoundError extends CodemodeError {
  override name = 'HandleNotFoundError';
  readonly handle: string;
  constructor(handle: string, granted: readonly string[]) {
    super('HANDLE_NOT_FOUND', handleNotFoundMessage(handle, granted));
    this.handle = handle;
  }
}

export class CancelledError extends CodemodeError {
  override name = 'CancelledError';
  constructor(reason?: string) {
    super('CANCELLED', cancelledMessage(reason));
  }
}

export class OverloadedError extends CodemodeError {
  override name = 'OverloadedError';
  constructor() {
    super('OVERLOADED', OVERLOADED_MESSAGE);
  }
}

export class WorkerLostError extends CodemodeError {
  override name = 'WorkerLostError';
  constructor(cause: string) {
    super('WORKER_LOST', workerLostMessage(cause));
  }
}

/** A request or message that is malformed; the message names the field and the rule. */
export class BadRequestError extends CodemodeError {
  override name = 'BadRequestError';
  constructor(message: string) {
    super('BAD_REQUEST', message);
  }
}

/** A defect of the executor itself: it should never happen, and says what broke when it does. */
export class InternalError extends CodemodeError {
  override name = 'InternalError';
  constructor(message: string, options?: ErrorOptions) {
    super('INTERNAL', message, options);
  }
}

/**
 * The text of a failure as the other side will read it: an Error's message, or String of anything
 * else. A message is only a string by convention, so whatever was thrown, text comes out.
 */
export function errorText(error: unknown): string {
  try {
    const text: unknown = error instanceof Error ? error.message : error;
    return typeof text === 'string' ? text : String(text);
  } catch {
    return 'The call failed with a value that cannot be turned into text.';
  }
}
