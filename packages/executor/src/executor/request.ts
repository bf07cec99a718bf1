/**
 * The request IsolateExecutor takes: the wire execute request plus the pieces that stay in the
 * caller's process (the tools' functions, a raw dispatch function, an outbound function). This file
 * splits one into the other, applies the executor's defaults and validates the wire half against
 * the protocol's schema, so a bad request is refused before any child sees it.
 */
import {
  BadRequestError,
  checkExecuteRequest,
  type ExecuteRequest,
  ExecuteRequestSchema,
  echoList,
  type ModuleMap,
  type OutboundMode,
  validate,
} from '@supolka/codemode-protocol';
import type { ExecutionHost, OutboundFunction } from '../pool/execution.ts';
import type { DispatchFunction } from '../sandbox/dispatch.ts';
import type { OutboundSetting, ResolvedOptions } from './options.ts';
import { buildDispatch, describeProviders, type HostProvider } from './providers.ts';

export interface IsolateExecuteRequest {
  /** An async arrow expression, optionally preceded by static import declarations. */
  readonly code: string;
  /** Merged over the executor's default `modules`: the request's keys win. */
  readonly modules?: ModuleMap;
  /** Namespaces the program calls tools through, each with its `fns` or served by `dispatch`. */
  readonly providers?: readonly HostProvider[];
  /** Serves tool calls of providers that have no `fns`: answers the result envelope as JSON. */
  readonly dispatch?: DispatchFunction;
  readonly timeout?: number;
  readonly memoryLimit?: number;
  /**
   * `null` disables fetch, a function of the wire request proxies it, `undefined` written
   * explicitly performs it natively; with no `outbound` key the executor's default applies.
   */
  readonly outbound?: OutboundSetting;
  /** Keep the isolate alive when the program resolves to a fetch handler. */
  readonly retainHandles?: boolean;
  /** Count time spent waiting on the caller's tools against the bound too. */
  readonly countHostWaits?: boolean;
  /** Erase TypeScript types from the code and `.ts` modules; the executor's `typescript` otherwise. */
  readonly typescript?: boolean;
}

const FIELDS = new Set([
  'code',
  'modules',
  'providers',
  'dispatch',
  'timeout',
  'memoryLimit',
  'outbound',
  'retainHandles',
  'countHostWaits',
  'typescript',
]);

export interface SplitRequest {
  readonly wire: ExecuteRequest;
  readonly host: Pick<ExecutionHost, 'dispatch' | 'outbound'>;
}

/** Splits and checks a request; throws BadRequestError naming the field and the rule. */
export function splitRequest(request: IsolateExecuteRequest, defaults: ResolvedOptions): SplitRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    throw new BadRequestError('The execute request must be an object with a `code` string.');
  }
  const unknown = Object.keys(request).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) {
    throw new BadRequestError(
      `Invalid execute request: ${echoList(unknown)} ${unknown.length === 1 ? 'is not a known field' : 'are not known fields'}.`,
    );
  }
  const providers = request.providers ?? [];
  if (!Array.isArray(providers))
    throw new BadRequestError('Invalid execute request: providers must be a list.');
  providers.forEach(checkFns);
  if (request.dispatch !== undefined && typeof request.dispatch !== 'function') {
    throw new BadRequestError('Invalid execute request: dispatch must be a function.');
  }
  const outbound = splitOutbound(request, defaults.outbound);
  const typescript = request.typescript ?? defaults.typescript;
  const candidate = {
    code: request.code,
    modules: { ...defaults.modules, ...request.modules },
    providers: describeProviders(providers),
    timeout: request.timeout ?? defaults.timeout,
    memoryLimit: request.memoryLimit ?? defaults.memoryLimit,
    outbound: outbound.mode,
    ...(request.retainHandles !== undefined ? { retainHandles: request.retainHandles } : {}),
    ...(request.countHostWaits !== undefined ? { countHostWaits: request.countHostWaits } : {}),
    // Absent on the wire means on, so only "off" travels; a non-boolean reaches the schema and is named.
    ...(typescript !== true ? { typescript } : {}),
  };
  // The schema's fast half first: it accepts what the schema would, in a few µs where the schema
  // takes over a hundred in a process just woken; the schema names the fault of anything else.
  const wire = checkExecuteRequest(candidate) ?? validate(ExecuteRequestSchema, candidate, 'execute request');
  return { wire, host: { dispatch: buildDispatch(providers, request.dispatch), outbound: outbound.host } };
}

/**
 * The caller's outbound tri-state split at the pool's boundary into its two halves: the wire mode
 * the child reads, and the function that stays in this process (proxied only). The outbound rule
 * (docs/protocol.md, "The outbound contract"): an explicit key decides the mode; a missing key takes the executor's default. The sandbox's
 * chooseOutbound (sandbox/fetch.ts) turns the tri-state the child rebuilds into a performer.
 */
function splitOutbound(
  request: IsolateExecuteRequest,
  fallback: OutboundSetting,
): { mode: OutboundMode; host: OutboundFunction | undefined } {
  const setting = Object.hasOwn(request, 'outbound') ? request.outbound : fallback;
  if (setting === null) return { mode: 'disabled', host: undefined };
  if (setting === undefined) return { mode: 'native', host: undefined };
  if (typeof setting === 'function') return { mode: 'proxied', host: setting };
  throw new BadRequestError(
    'Invalid execute request: outbound must be null (disabled), a function (proxied) or undefined (native).',
  );
}

function checkFns(provider: HostProvider, index: number): void {
  if (typeof provider !== 'object' || provider === null) {
    throw new BadRequestError(`Invalid execute request: providers[${index}] must be an object.`);
  }
  if (provider.fns === undefined) return;
  if (typeof provider.fns !== 'object' || provider.fns === null) {
    throw new BadRequestError(
      `Invalid execute request: providers[${index}].fns must be an object of functions.`,
    );
  }
  for (const [tool, fn] of Object.entries(provider.fns)) {
    if (typeof fn !== 'function') {
      throw new BadRequestError(
        `Invalid execute request: providers[${index}].fns.${tool} must be a function.`,
      );
    }
  }
}
