/**
 * Hand-written checks for the messages every tool call and every execution cross with: dispatch,
 * dispatchReply, result, and execute with its request (which the executor also checks alone,
 * checkExecuteRequest); cancel and closeHandles, so that a pool child decides what it hears at
 * rest without loading the schemas (message-wire.ts); console, a live console's lines; and hello,
 * which opens every connection a server takes. A message's schema (messages.ts) costs 30-35
 * µs in a process just woken, an execute request's over 100, and these checks a few, on paths that
 * run at every boundary. The pool's table (packages/executor/src/pool/messages/) takes these checks
 * with the messages it shares and adds its own for its hot private messages, built from knownKeys
 * and isId.
 *
 * Each check returns exactly what its schema returns for a value it accepts (new objects and lists,
 * keys in the schema's order, `result` passed through as it is) and undefined for anything else,
 * and the caller then asks the schema, which accepts or refuses and names why. So a check only
 * decides faster what the schema would accept: every refusal, and every shape a check does not
 * know (a field the schema gained, a prototype other than a plain object's, a number out of range),
 * takes the schema's path. hot-messages.test.ts proves the equality over messages generated from
 * the schemas themselves, valid and hostile, so a field added there fails the test until the check
 * learns it.
 *
 * The checks read plain data: what the codec's parse built (decodeMessage's), or a request the
 * executor assembled in its caller's process from the caller's own objects (checkExecuteRequest).
 * An object of any other prototype takes the schema's path.
 */
import {
  ENVELOPE_CODES,
  type EnvelopeCode,
  ERROR_KINDS,
  NOTE_LIMIT,
  NOTE_TEXT_LIMIT,
  USER_ERROR_DETAILS,
  USER_ERROR_TEXT_LIMITS,
} from './errors.ts';
import {
  CODE_LIMIT,
  CONSOLE_FORMATS,
  DURABLE_TOKEN_LIMIT,
  ID_LIMIT,
  IN_FLIGHT_CALL_LIMIT,
  LOG_LEVELS,
  LOG_LINE_LIMIT,
  MAX_DELAY,
  MAX_MEMORY_LIMIT,
  MIN_MEMORY_LIMIT,
  MODULE_LIMIT,
  MODULE_SOURCE_LIMIT,
  PAUSE_REASON_LIMIT,
  PROVIDER_LIMIT,
} from './limits.ts';
import type { HotMessageChecks } from './message-wire.ts';
import type { Message, MessageOf } from './messages.ts';
import type { PausedRun, PendingCall } from './schemas/durable.ts';
import type { ExecuteRequest, ModuleEntry, ModuleMap, ProviderDescriptor } from './schemas/request.ts';

type Plain = Record<string, unknown>;

const objectPrototype = Object.prototype;
const envelopeCodes: ReadonlySet<unknown> = new Set(ENVELOPE_CODES);
const logLevels: ReadonlySet<unknown> = new Set(LOG_LEVELS);

export const ID_ONLY_KEYS: ReadonlySet<string> = new Set(['type', 'id']);
export const HELLO_KEYS: ReadonlySet<string> = new Set(['type', 'protocol', 'token', 'instance']);
export const CANCEL_KEYS: ReadonlySet<string> = new Set(['type', 'id', 'reason']);
export const CLOSE_HANDLES_KEYS: ReadonlySet<string> = new Set(['type', 'id', 'executionId']);
export const CONSOLE_KEYS: ReadonlySet<string> = new Set(['type', 'id', 'lines']);
export const DISPATCH_KEYS: ReadonlySet<string> = new Set([
  'type',
  'id',
  'call',
  'provider',
  'tool',
  'args',
  'durable',
]);
export const DISPATCH_REPLY_KEYS: ReadonlySet<string> = new Set(['type', 'id', 'call', 'frame', 'paused']);
export const DURABLE_CALL_KEYS: ReadonlySet<string> = new Set(['sequence', 'idempotencyKey', 'tokenId']);
export const PAUSE_KEYS: ReadonlySet<string> = new Set(['reason', 'data']);
export const PAUSED_RUN_KEYS: ReadonlySet<string> = new Set([
  'reason',
  'data',
  'pending',
  'token',
  'tokenId',
  'expiresAt',
]);
export const PENDING_CALL_KEYS: ReadonlySet<string> = new Set([
  'sequence',
  'provider',
  'tool',
  'args',
  'outcome',
]);
export const RESULT_KEYS: ReadonlySet<string> = new Set(['type', 'id', 'envelope']);
export const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  'result',
  'error',
  'code',
  'logs',
  'executionId',
  ...USER_ERROR_DETAILS,
  'notes',
  'paused',
]);
const errorKinds: ReadonlySet<unknown> = new Set(ERROR_KINDS);
export const LOG_LINE_KEYS: ReadonlySet<string> = new Set(['level', 'text']);
export const EXECUTE_KEYS: ReadonlySet<string> = new Set([
  'type',
  'id',
  'request',
  'reportHostWaits',
  'streamConsole',
]);
export const REQUEST_KEYS: ReadonlySet<string> = new Set([
  'code',
  'modules',
  'providers',
  'timeout',
  'memoryLimit',
  'outbound',
  'retainHandles',
  'countHostWaits',
  'typescript',
  'consoleFormat',
  'durable',
]);
export const MODULE_KEYS: ReadonlySet<string> = new Set(['js', 'cjs', 'json', 'text', 'data']);
export const PROVIDER_KEYS: ReadonlySet<string> = new Set([
  'name',
  'positionalArgs',
  'prelude',
  'proxySource',
]);
const outboundModes: ReadonlySet<unknown> = new Set(['disabled', 'proxied', 'native']);
const consoleFormats: ReadonlySet<unknown> = new Set(CONSOLE_FORMATS);

/** An object of Object.prototype or of none, whose enumerable keys are all in `known`: their count, or -1. */
export function knownKeys(value: unknown, known: ReadonlySet<string>): number {
  if (typeof value !== 'object' || value === null) return -1;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== objectPrototype && prototype !== null) return -1;
  let count = 0;
  // for-in, not Object.keys: no list is built, and an enumerable key inherited from a changed
  // Object.prototype is seen too, so such a value takes the schema's path.
  for (const key in value) {
    if (!known.has(key)) return -1;
    count++;
  }
  return count;
}

/** MessageIdSchema and ExecutionIdSchema: a string of 1 to ID_LIMIT characters. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= ID_LIMIT;
}

/** A call number: a whole number the schema's int() accepts (a safe integer), not negative. */
function isCallNumber(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** A durable run's call or settlement number: a whole number from 1. */
function isSequence(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

/** A string of at most `limit` characters, when `value` has `key`; `true` when it has none. */
function optionalText(value: Plain, key: string, limit: number): boolean {
  if (!Object.hasOwn(value, key)) return true;
  const text = value[key];
  return typeof text === 'string' && text.length <= limit;
}

/** dispatch.durable: the sequence, and the idempotency key and token id of a call a resume performs. */
function checkDurableCall(value: unknown): MessageOf<'dispatch'>['durable'] | undefined {
  if (knownKeys(value, DURABLE_CALL_KEYS) === -1) return undefined;
  const durable = value as Plain;
  if (!isSequence(durable.sequence)) return undefined;
  if (!optionalText(durable, 'idempotencyKey', ID_LIMIT) || !optionalText(durable, 'tokenId', ID_LIMIT))
    return undefined;
  const checked: NonNullable<MessageOf<'dispatch'>['durable']> = { sequence: durable.sequence };
  if (Object.hasOwn(durable, 'idempotencyKey')) checked.idempotencyKey = durable.idempotencyKey as string;
  if (Object.hasOwn(durable, 'tokenId')) checked.tokenId = durable.tokenId as string;
  return checked;
}

/** dispatchReply.paused: why the tool paused, and its JSON data. */
function checkPause(value: unknown): MessageOf<'dispatchReply'>['paused'] | undefined {
  if (knownKeys(value, PAUSE_KEYS) === -1) return undefined;
  const pause = value as Plain;
  if (!optionalText(pause, 'reason', PAUSE_REASON_LIMIT)) return undefined;
  const checked: NonNullable<MessageOf<'dispatchReply'>['paused']> = {};
  if (Object.hasOwn(pause, 'reason')) checked.reason = pause.reason as string;
  if (Object.hasOwn(pause, 'data')) checked.data = pause.data;
  return checked;
}

function checkDispatch(value: Plain): MessageOf<'dispatch'> | undefined {
  const size = knownKeys(value, DISPATCH_KEYS);
  const durable = Object.hasOwn(value, 'durable');
  if (size !== DISPATCH_KEYS.size - (durable ? 0 : 1)) return undefined;
  const { type, id, call, provider, tool, args } = value;
  if (type !== 'dispatch' || !isId(id) || !isCallNumber(call)) return undefined;
  if (typeof provider !== 'string' || typeof tool !== 'string' || typeof args !== 'string') return undefined;
  if (!durable) return { type, id, call, provider, tool, args };
  const checked = checkDurableCall(value.durable);
  return checked === undefined ? undefined : { type, id, call, provider, tool, args, durable: checked };
}

function checkDispatchReply(value: Plain): MessageOf<'dispatchReply'> | undefined {
  const size = knownKeys(value, DISPATCH_REPLY_KEYS);
  const paused = Object.hasOwn(value, 'paused');
  if (size !== DISPATCH_REPLY_KEYS.size - (paused ? 0 : 1)) return undefined;
  const { type, id, call, frame } = value;
  if (type !== 'dispatchReply' || !isId(id) || !isCallNumber(call)) return undefined;
  if (!Array.isArray(frame) || frame.length !== 2) return undefined;
  const [outcome, text] = frame as unknown[];
  if ((outcome !== 'returned' && outcome !== 'thrown') || typeof text !== 'string') return undefined;
  if (!paused) return { type, id, call, frame: [outcome, text] };
  const checked = checkPause(value.paused);
  return checked === undefined ? undefined : { type, id, call, frame: [outcome, text], paused: checked };
}

function checkPendingCall(value: unknown): PendingCall | undefined {
  if (knownKeys(value, PENDING_CALL_KEYS) === -1) return undefined;
  const call = value as Plain;
  const { sequence, provider, tool, args } = call;
  if (!isSequence(sequence) || typeof provider !== 'string' || typeof tool !== 'string') return undefined;
  if (typeof args !== 'string') return undefined;
  if (!Object.hasOwn(call, 'outcome')) return { sequence, provider, tool, args };
  return call.outcome === 'unknown' ? { sequence, provider, tool, args, outcome: 'unknown' } : undefined;
}

/** The envelope's paused: a durable run's pause, its pending calls and its token. */
function checkPausedRun(value: unknown): PausedRun | undefined {
  if (knownKeys(value, PAUSED_RUN_KEYS) === -1) return undefined;
  const paused = value as Plain;
  if (!optionalText(paused, 'reason', PAUSE_REASON_LIMIT)) return undefined;
  const { pending, token, tokenId, expiresAt } = paused;
  if (!Array.isArray(pending) || pending.length > IN_FLIGHT_CALL_LIMIT) return undefined;
  if (typeof token !== 'string' || token.length > DURABLE_TOKEN_LIMIT) return undefined;
  if (typeof tokenId !== 'string' || tokenId.length > ID_LIMIT || !Number.isSafeInteger(expiresAt))
    return undefined;
  const calls: PendingCall[] = [];
  for (let index = 0; index < pending.length; index++) {
    const call = checkPendingCall(pending[index]);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  // In the schema's key order, each optional key only when the value has it.
  const checked = {} as PausedRun;
  if (Object.hasOwn(paused, 'reason')) checked.reason = paused.reason as string;
  if (Object.hasOwn(paused, 'data')) checked.data = paused.data;
  checked.pending = calls;
  checked.token = token;
  checked.tokenId = tokenId;
  checked.expiresAt = expiresAt as number;
  return checked;
}

function checkLogs(value: unknown): MessageOf<'result'>['envelope']['logs'] | undefined {
  if (!Array.isArray(value) || value.length > LOG_LINE_LIMIT) return undefined;
  const logs: MessageOf<'result'>['envelope']['logs'] = [];
  for (let index = 0; index < value.length; index++) {
    const line = value[index] as Plain;
    if (knownKeys(line, LOG_LINE_KEYS) !== LOG_LINE_KEYS.size) return undefined;
    const { level, text } = line;
    if (!logLevels.has(level) || typeof text !== 'string') return undefined;
    logs.push({ level: level as (typeof LOG_LEVELS)[number], text });
  }
  return logs;
}

function checkEnvelope(value: unknown): MessageOf<'result'>['envelope'] | undefined {
  if (knownKeys(value, ENVELOPE_KEYS) === -1) return undefined;
  const envelope = value as Plain;
  if (!Object.hasOwn(envelope, 'logs')) return undefined;
  const logs = checkLogs(envelope.logs);
  if (logs === undefined) return undefined;
  // Built in the schema's key order, each optional key only when the value has it.
  const checked: MessageOf<'result'>['envelope'] = {} as MessageOf<'result'>['envelope'];
  if (Object.hasOwn(envelope, 'result')) checked.result = envelope.result;
  if (Object.hasOwn(envelope, 'error')) {
    if (typeof envelope.error !== 'string') return undefined;
    checked.error = envelope.error;
  }
  if (Object.hasOwn(envelope, 'code')) {
    if (!envelopeCodes.has(envelope.code)) return undefined;
    checked.code = envelope.code as EnvelopeCode;
  }
  checked.logs = logs;
  if (Object.hasOwn(envelope, 'executionId')) {
    if (!isId(envelope.executionId)) return undefined;
    checked.executionId = envelope.executionId;
  }
  if (Object.hasOwn(envelope, 'errorKind')) {
    if (!errorKinds.has(envelope.errorKind)) return undefined;
    checked.errorKind = envelope.errorKind as (typeof ERROR_KINDS)[number];
  }
  for (const key of USER_ERROR_DETAILS) {
    if (key === 'errorKind' || !Object.hasOwn(envelope, key)) continue;
    const text = envelope[key];
    if (typeof text !== 'string' || text.length > USER_ERROR_TEXT_LIMITS[key]) return undefined;
    checked[key] = text;
  }
  if (Object.hasOwn(envelope, 'notes')) {
    const notes = checkNotes(envelope.notes);
    if (notes === undefined) return undefined;
    checked.notes = notes;
  }
  if (Object.hasOwn(envelope, 'paused')) {
    const paused = checkPausedRun(envelope.paused);
    if (paused === undefined) return undefined;
    checked.paused = paused;
  }
  return checked;
}

function checkNotes(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length > NOTE_LIMIT) return undefined;
  const notes: string[] = [];
  for (let index = 0; index < value.length; index++) {
    const note: unknown = value[index];
    if (typeof note !== 'string' || note.length > NOTE_TEXT_LIMIT) return undefined;
    notes.push(note);
  }
  return notes;
}

function checkResult(value: Plain): MessageOf<'result'> | undefined {
  if (knownKeys(value, RESULT_KEYS) !== RESULT_KEYS.size) return undefined;
  const { type, id } = value;
  if (type !== 'result' || !isId(id)) return undefined;
  const envelope = checkEnvelope(value.envelope);
  return envelope === undefined ? undefined : { type, id, envelope };
}

/** A whole number within bounds that are themselves safe integers. */
function isWholeIn(value: unknown, min: number, max: number): value is number {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

/** One module of a map as its schema takes it, or undefined for the schema to decide. */
export function checkModuleEntry(value: unknown): ModuleEntry | undefined {
  if (typeof value === 'string') return value.length <= MODULE_SOURCE_LIMIT ? value : undefined;
  if (knownKeys(value, MODULE_KEYS) === -1) return undefined;
  const entry = value as Plain;
  const checked: Exclude<ModuleEntry, string> = {};
  for (const key of ['js', 'cjs'] as const) {
    if (!Object.hasOwn(entry, key)) continue;
    const source = entry[key];
    if (typeof source !== 'string' || source.length > MODULE_SOURCE_LIMIT) return undefined;
    checked[key] = source;
  }
  if (Object.hasOwn(entry, 'json')) checked.json = entry.json;
  for (const key of ['text', 'data'] as const) {
    if (!Object.hasOwn(entry, key)) continue;
    const text = entry[key];
    if (typeof text !== 'string') return undefined;
    checked[key] = text;
  }
  return checked;
}

/** A module map as its schema takes it (a new object), or undefined for the schema to decide. */
export function checkModules(value: unknown): ModuleMap | undefined {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== objectPrototype) {
    return undefined;
  }
  // The schema's record reads symbol keys too, and refuses them: its path says so.
  if (Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const modules: ModuleMap = {};
  let count = 0;
  for (const name in value) {
    // The schema's record drops a module named __proto__ (its assignment sets no key), and reads no
    // key inherited from a changed Object.prototype: their paths say so.
    if (name === '__proto__' || !Object.hasOwn(value, name) || ++count > MODULE_LIMIT) return undefined;
    const entry = checkModuleEntry((value as Plain)[name]);
    if (entry === undefined) return undefined;
    modules[name] = entry;
  }
  return modules;
}

function checkProviders(value: unknown): ProviderDescriptor[] | undefined {
  if (!Array.isArray(value) || value.length > PROVIDER_LIMIT) return undefined;
  const providers: ProviderDescriptor[] = [];
  for (let index = 0; index < value.length; index++) {
    const provider = value[index] as Plain;
    if (knownKeys(provider, PROVIDER_KEYS) === -1 || typeof provider.name !== 'string') return undefined;
    const checked: ProviderDescriptor = { name: provider.name };
    if (Object.hasOwn(provider, 'positionalArgs')) {
      if (typeof provider.positionalArgs !== 'boolean') return undefined;
      checked.positionalArgs = provider.positionalArgs;
    }
    for (const key of ['prelude', 'proxySource'] as const) {
      if (!Object.hasOwn(provider, key)) continue;
      const source = provider[key];
      if (typeof source !== 'string') return undefined;
      checked[key] = source;
    }
    providers.push(checked);
  }
  return providers;
}

/**
 * ExecuteRequestSchema's fast half: exactly what the schema returns for a request it accepts (the
 * codec's plain data), undefined for anything else, which the schema then accepts or refuses.
 */
export function checkExecuteRequest(value: unknown): ExecuteRequest | undefined {
  if (knownKeys(value, REQUEST_KEYS) === -1) return undefined;
  const request = value as Plain;
  const { code } = request;
  if (typeof code !== 'string' || code.length > CODE_LIMIT) return undefined;
  const checked: ExecuteRequest = { code };
  if (Object.hasOwn(request, 'modules')) {
    const modules = checkModules(request.modules);
    if (modules === undefined) return undefined;
    checked.modules = modules;
  }
  if (Object.hasOwn(request, 'providers')) {
    const providers = checkProviders(request.providers);
    if (providers === undefined) return undefined;
    checked.providers = providers;
  }
  if (Object.hasOwn(request, 'timeout')) {
    if (!isWholeIn(request.timeout, 1, MAX_DELAY)) return undefined;
    checked.timeout = request.timeout;
  }
  if (Object.hasOwn(request, 'memoryLimit')) {
    if (!isWholeIn(request.memoryLimit, MIN_MEMORY_LIMIT, MAX_MEMORY_LIMIT)) return undefined;
    checked.memoryLimit = request.memoryLimit;
  }
  if (Object.hasOwn(request, 'outbound')) {
    if (!outboundModes.has(request.outbound)) return undefined;
    checked.outbound = request.outbound as ExecuteRequest['outbound'];
  }
  for (const key of ['retainHandles', 'countHostWaits', 'typescript'] as const) {
    if (!Object.hasOwn(request, key)) continue;
    const flag = request[key];
    if (typeof flag !== 'boolean') return undefined;
    checked[key] = flag;
  }
  if (Object.hasOwn(request, 'consoleFormat')) {
    if (!consoleFormats.has(request.consoleFormat)) return undefined;
    checked.consoleFormat = request.consoleFormat as ExecuteRequest['consoleFormat'];
  }
  if (Object.hasOwn(request, 'durable')) {
    if (typeof request.durable !== 'boolean') return undefined;
    checked.durable = request.durable;
  }
  return checked;
}

function checkExecute(value: Plain): MessageOf<'execute'> | undefined {
  if (knownKeys(value, EXECUTE_KEYS) === -1) return undefined;
  const { type, id } = value;
  if (type !== 'execute' || !isId(id) || !Object.hasOwn(value, 'request')) return undefined;
  const request = checkExecuteRequest(value.request);
  if (request === undefined) return undefined;
  // The flags after the request, in the schema's order, as zod writes them.
  const checked: { -readonly [Key in keyof MessageOf<'execute'>]: MessageOf<'execute'>[Key] } = {
    type,
    id,
    request,
  };
  for (const key of ['reportHostWaits', 'streamConsole'] as const) {
    if (!Object.hasOwn(value, key)) continue;
    const flag = value[key];
    if (typeof flag !== 'boolean') return undefined;
    checked[key] = flag;
  }
  return checked;
}

/** hello: the version its sender speaks (a whole number), and its token and instance name when it has them. */
function checkHello(value: Plain): MessageOf<'hello'> | undefined {
  if (knownKeys(value, HELLO_KEYS) === -1) return undefined;
  const { type, protocol } = value;
  if (type !== 'hello' || !Number.isSafeInteger(protocol)) return undefined;
  const checked: { -readonly [Key in keyof MessageOf<'hello'>]: MessageOf<'hello'>[Key] } = {
    type,
    protocol: protocol as number,
  };
  // In the schema's order, as zod writes them.
  for (const key of ['token', 'instance'] as const) {
    if (!Object.hasOwn(value, key)) continue;
    const text = value[key];
    if (typeof text !== 'string') return undefined;
    checked[key] = text;
  }
  return checked;
}

/** cancel: a type, a message id, and the caller's reason when it gives one (version 3). */
function checkCancel(value: Plain): MessageOf<'cancel'> | undefined {
  if (knownKeys(value, CANCEL_KEYS) === -1) return undefined;
  const { type, id } = value;
  if (type !== 'cancel' || !isId(id)) return undefined;
  if (!Object.hasOwn(value, 'reason')) return { type, id };
  const { reason } = value;
  return typeof reason === 'string' ? { type, id, reason } : undefined;
}

/** console: a run's lines as they come (a live console), bounded as an envelope's logs are. */
function checkConsole(value: Plain): MessageOf<'console'> | undefined {
  if (knownKeys(value, CONSOLE_KEYS) !== CONSOLE_KEYS.size) return undefined;
  const { type, id, lines } = value;
  if (type !== 'console' || !isId(id)) return undefined;
  const checked = checkLogs(lines);
  return checked === undefined ? undefined : { type, id, lines: checked };
}

function checkCloseHandles(value: Plain): MessageOf<'closeHandles'> | undefined {
  if (knownKeys(value, CLOSE_HANDLES_KEYS) !== CLOSE_HANDLES_KEYS.size) return undefined;
  const { type, id, executionId } = value;
  if (type !== 'closeHandles' || !isId(id) || !isId(executionId)) return undefined;
  return { type, id, executionId };
}

/** The hot message types' checks, by type: each the fast half of its schema in MESSAGE_SCHEMAS. */
export const HOT_MESSAGE_CHECKS = {
  dispatch: checkDispatch,
  dispatchReply: checkDispatchReply,
  result: checkResult,
  execute: checkExecute,
  // A live console's lines, which a caller watching a run hears as they come: without this check
  // the first of them waited for the schemas to load in a process that held none (the executor's
  // caller, docs/pool.md "Cold start"), and every one took the schema's path.
  console: checkConsole,
  // What a pool child hears besides executions, their answers and its heartbeat (the pool's own
  // check): with these it decides every message of a child at rest without the schemas, so a child
  // never loads zod to stay healthy.
  cancel: checkCancel,
  closeHandles: checkCloseHandles,
  // The first message of every connection a server takes: without this check the server loaded the
  // schemas to open its first connection (docs/server.md, "Cold start").
  hello: checkHello,
} satisfies HotMessageChecks<Message>;
