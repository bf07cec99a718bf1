/**
 * The one place an execute request as a caller writes it is split: into the wire part (plain
 * data, exactly what travels, checked against ExecuteRequestSchema by check-request.ts) and the
 * host part (the functions that stay with the caller: host-part.ts). IsolateExecutor and
 * ExecutorClient both split here, so a field the schema gains travels from either with no edit
 * here, and each refusal is spelled once (errors.ts). This half loads no zod (wire.ts exports it).
 *
 * The wire part takes every field of the caller's request but the ones with a host meaning
 * (`providers`' functions, `outbound`, IsolateExecutor's `dispatch`), so the schema, not this
 * file, decides what a request may hold.
 */
import {
  BadRequestError,
  DISPATCH_NOT_FUNCTION_MESSAGE,
  fnsNotObjectMessage,
  OUTBOUND_SETTING_MESSAGE,
  PROVIDERS_NOT_LIST_MESSAGE,
  providerNotObjectMessage,
  REQUEST_NOT_OBJECT_MESSAGE,
  toolNotFunctionMessage,
  unknownFieldsText,
} from './errors.ts';
import {
  buildDispatch,
  type DispatchFunction,
  describeProviders,
  type HostFunctions,
  type OutboundSetting,
  outboundMode,
  type ToolProvider,
} from './host-part.ts';
import { REQUEST_KEYS } from './hot-messages.ts';
import type { ConsoleFormat, ExecuteRequest, ModuleMap, OutboundMode } from './schemas/request.ts';

/** The request as a caller beside its tools writes it: the wire fields, with functions where they serve. */
export type CallerRequest<Outbound> = Omit<ExecuteRequest, 'providers' | 'outbound'> & {
  /** Namespaces the program calls tools through, each with the `fns` that serve it. */
  readonly providers?: readonly ToolProvider[];
  readonly outbound?: OutboundSetting<Outbound>;
};

/** The two parts a request travels as, from the caller down to the sandbox. */
export interface RequestParts<Outbound> {
  readonly wire: ExecuteRequest;
  readonly host: HostFunctions<Outbound>;
}

/** What a request that leaves a field out gets, as IsolateExecutor's options set it. */
export interface RequestDefaults<Outbound> {
  /** Merged under the request's own modules: the request's keys win. */
  readonly modules: ModuleMap;
  readonly timeout: number;
  readonly memoryLimit: number;
  readonly typescript: boolean;
  /** For a request with no `consoleFormat` (absent: the protocol's `string`). */
  readonly consoleFormat?: ConsoleFormat | undefined;
  /** For a request with no `outbound` key. */
  readonly outbound: OutboundSetting<Outbound>;
}

/** Where the two forms that split here differ. */
export interface RequestForm<Outbound> {
  /**
   * IsolateExecutor's form: a `dispatch` function serves the namespaces that have no `fns`, and a
   * field neither the schema nor the form knows is refused first, on its own. Without it (the
   * client's form) such a field reaches the schema, which names it among the request's other faults.
   */
  readonly dispatch?: boolean;
  /** Applied before the check; without them a field left out is left out on the wire too. */
  readonly defaults?: RequestDefaults<Outbound>;
  /** A tool's throw this claims leaves the dispatch as the throw it is (the client's pause signal). */
  readonly passThrough?: (error: unknown) => boolean;
}

/** The wire fields, and `dispatch`: what IsolateExecutor's form of a request may hold. */
const DISPATCH_FORM_FIELDS: ReadonlySet<string> = new Set([...REQUEST_KEYS, 'dispatch']);

/**
 * A caller's request taken apart, every rule but the wire schema's checked: the wire fields as
 * they will travel (`candidate`, not yet checked against the schema) and the host part. Loads no
 * zod, so a process can split with the schema's fast half and load the schema only for what that
 * half does not decide (the executor's caller process: checkExecuteRequest, then checkRequest).
 * Throws BadRequestError naming the field and the rule.
 */
export function separateRequest<Outbound>(
  request: unknown,
  form: RequestForm<Outbound> = {},
): { readonly candidate: Record<string, unknown>; readonly host: HostFunctions<Outbound> } {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new BadRequestError(REQUEST_NOT_OBJECT_MESSAGE);
  }
  const fields = request as Record<string, unknown>;
  if (form.dispatch) {
    const unknown = Object.keys(fields).filter((key) => !DISPATCH_FORM_FIELDS.has(key));
    if (unknown.length > 0)
      throw new BadRequestError(`Invalid execute request: ${unknownFieldsText(unknown)}.`);
  }
  // IsolateExecutor has always read a null `providers` as none; the client refuses it as no list.
  const providers = form.dispatch || fields.providers !== null ? (fields.providers ?? []) : null;
  if (!Array.isArray(providers)) throw new BadRequestError(PROVIDERS_NOT_LIST_MESSAGE);
  providers.forEach(checkFns);
  const dispatch = form.dispatch ? fields.dispatch : undefined;
  if (dispatch !== undefined && typeof dispatch !== 'function') {
    throw new BadRequestError(DISPATCH_NOT_FUNCTION_MESSAGE);
  }
  const outbound = readOutbound<Outbound>(fields, form.defaults);

  const candidate: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    if (key === 'providers' || key === 'outbound' || (form.dispatch && key === 'dispatch')) continue;
    if (fields[key] === undefined) continue;
    // A key spelled __proto__ (from JSON.parse, say) is an own key here too, which the schema then
    // names as unknown, never the candidate's prototype, whose keys the schema would read.
    if (key === '__proto__') Object.defineProperty(candidate, key, { value: fields[key], enumerable: true });
    else candidate[key] = fields[key];
  }
  candidate.providers = describeProviders(providers as ToolProvider[]);
  if (outbound !== undefined) candidate.outbound = outbound.mode;
  return {
    candidate: form.defaults ? withDefaults(candidate, form.defaults) : candidate,
    host: {
      dispatch: buildDispatch(
        providers as ToolProvider[],
        dispatch as DispatchFunction | undefined,
        form.passThrough,
      ),
      outbound: outbound?.proxy,
    },
  };
}

/**
 * The request's outbound mode, and its function when proxied: an explicit key decides, a missing
 * one takes the default; with no default either, no mode travels.
 */
function readOutbound<Outbound>(
  fields: Readonly<Record<string, unknown>>,
  defaults: RequestDefaults<Outbound> | undefined,
): { mode: OutboundMode; proxy: Outbound | undefined } | undefined {
  const explicit = Object.hasOwn(fields, 'outbound');
  if (!explicit && defaults === undefined) return undefined;
  const setting = explicit ? fields.outbound : defaults?.outbound;
  const mode = outboundMode(setting);
  if (mode === undefined) throw new BadRequestError(OUTBOUND_SETTING_MESSAGE);
  return { mode, proxy: mode === 'proxied' ? (setting as Outbound) : undefined };
}

/**
 * A request's wire fields over the defaults: the modules merged under the request's own, the
 * timeout and the memory limit filled in. `outbound` is the caller's to decide (splitRequest).
 */
export function withDefaults(
  fields: Readonly<Record<string, unknown>>,
  defaults: Omit<RequestDefaults<unknown>, 'outbound'>,
): Record<string, unknown> {
  const { typescript: given, consoleFormat: givenFormat, ...rest } = fields;
  const typescript = given ?? defaults.typescript;
  const consoleFormat = givenFormat ?? defaults.consoleFormat;
  return {
    ...rest,
    modules: { ...defaults.modules, ...(fields.modules as ModuleMap | undefined) },
    timeout: fields.timeout ?? defaults.timeout,
    memoryLimit: fields.memoryLimit ?? defaults.memoryLimit,
    // Absent on the wire means on, so only "off" travels; a non-boolean reaches the schema and is named.
    ...(typescript !== true ? { typescript } : {}),
    // Absent means `string` too; anything else travels, and the schema names a value it refuses.
    ...(consoleFormat !== undefined && consoleFormat !== 'string' ? { consoleFormat } : {}),
  };
}

function checkFns(provider: unknown, index: number): void {
  if (typeof provider !== 'object' || provider === null) {
    throw new BadRequestError(providerNotObjectMessage(index));
  }
  const fns = (provider as ToolProvider).fns;
  if (fns === undefined) return;
  if (typeof fns !== 'object' || fns === null) throw new BadRequestError(fnsNotObjectMessage(index));
  for (const [tool, fn] of Object.entries(fns)) {
    if (typeof fn !== 'function') throw new BadRequestError(toolNotFunctionMessage(index, tool));
  }
}
