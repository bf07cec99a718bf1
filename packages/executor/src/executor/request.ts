/**
 * The request IsolateExecutor takes, in its two parts: the wire part (plain data, exactly what the
 * child receives) and the host part (the tools' functions and the outbound function, which stay in
 * the caller's process). A caller's object is split by the protocol's separateRequest, the one place a
 * request is split, with the executor's defaults; a wire request a server received is taken as it
 * is, with the same defaults. Either way a bad request is refused before any child sees it.
 */
import {
  type CallerRequest,
  checkExecuteRequest,
  type DispatchFunction,
  type ExecuteRequest,
  type HostFunctions,
  isPauseSignal,
  type RequestParts,
  separateRequest,
  type ToolProvider,
  withDefaults,
} from '@supolka/codemode-protocol/wire';
import { withSchemas } from '../pool/messages/schemas-on-demand.ts';
import type { OutboundFunction } from '../sandbox/fetch.ts';
import type { OutboundSetting, ResolvedOptions } from './options.ts';

/** A namespace of tools as a caller in this process hands it over: the wire descriptor and its `fns`. */
export type HostProvider = ToolProvider;

export interface IsolateExecuteRequest extends CallerRequest<OutboundFunction> {
  /** Serves tool calls of providers that have no `fns`: answers the result envelope as JSON. */
  readonly dispatch?: DispatchFunction;
  /**
   * `null` disables fetch, a function of the wire request proxies it, `undefined` written
   * explicitly performs it natively; with no `outbound` key the executor's default applies.
   */
  readonly outbound?: OutboundSetting;
}

/** The functions of an execution that stay in this process (host-part.ts in the protocol). */
export type RequestHost = HostFunctions<OutboundFunction>;

export type SplitRequest = RequestParts<OutboundFunction>;

/**
 * Splits and checks a caller's request; throws (or rejects with) BadRequestError naming the field
 * and the rule. Answers at once unless the wire part is one the schema's fast half does not decide
 * and the schemas are not loaded yet (checked).
 */
export function splitRequest(
  request: IsolateExecuteRequest,
  defaults: ResolvedOptions,
): SplitRequest | Promise<SplitRequest> {
  // A tool's pause signal leaves the dispatch as its throw, for the pool to record as the pause of
  // a durable run (pool/serve.ts), whichever copy of pause() made it.
  const { candidate, host } = separateRequest<OutboundFunction>(request, {
    dispatch: true,
    defaults,
    passThrough: isPauseSignal,
  });
  return withWire(checked(candidate), host);
}

/**
 * A wire request received from elsewhere (a server's client), with the executor's defaults as a
 * caller's object gets them, checked again, since the merged modules are new: the fast check
 * takes an already valid request in a few µs. Its outbound mode is its own: one left out is
 * `disabled`, whatever the executor's default, which may be a function of this process that a
 * remote request must never reach. The host's outbound function serves a `proxied` run only.
 */
export function wireRequest(
  wire: ExecuteRequest,
  host: RequestHost,
  defaults: ResolvedOptions,
): SplitRequest | Promise<SplitRequest> {
  const outbound = wire.outbound ?? 'disabled';
  return withWire(checked(withDefaults({ ...wire, outbound }, defaults)), {
    dispatch: host.dispatch,
    outbound: outbound === 'proxied' ? host.outbound : undefined,
  });
}

/**
 * The wire part checked: by the schema's fast half (hot-messages.ts in the protocol), which takes
 * a valid request in a few µs and loads no zod; by the schema for anything else, which accepts
 * what the fast half does not know or names the request's fault.
 */
function checked(candidate: Record<string, unknown>): ExecuteRequest | Promise<ExecuteRequest> {
  return checkExecuteRequest(candidate) ?? withSchemas((schemas) => schemas.protocol.checkRequest(candidate));
}

function withWire(
  wire: ExecuteRequest | Promise<ExecuteRequest>,
  host: RequestHost,
): SplitRequest | Promise<SplitRequest> {
  return wire instanceof Promise ? wire.then((checked) => ({ wire: checked, host })) : { wire, host };
}
