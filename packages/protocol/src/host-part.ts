/**
 * The host part of an execute request: what stays in the caller's process while the wire part
 * travels (docs/protocol.md, "The execute request"). The tools' functions become one dispatch
 * function that answers each tool call with the result envelope as codec JSON, so binary values
 * survive both ways; a proxied run's fetch goes to the caller's outbound function. The outbound
 * setting a caller writes (null, a function, undefined) is spelled here once, and read into the
 * wire's mode here once. Loads no zod: the pool's child and the in-process sandbox read it too.
 */
import { parseForDispatch, stringifyForDispatch } from './codec.ts';
import { errorText, toolNotFoundEnvelope } from './errors.ts';
import type { OutboundMode, ProviderDescriptor } from './schemas/request.ts';

/** Serves one tool call: the result envelope as codec JSON; a throw is the call's failure text. */
export type DispatchFunction = (provider: string, tool: string, argsJson: string) => Promise<string> | string;

/** A tool: called with the argument list (spread), or with one object when `positionalArgs` is false. */
export type ToolFunction = (...args: never[]) => unknown;

/** A provider as a caller hands it over: the wire descriptor plus the functions that serve it. */
export interface ToolProvider extends ProviderDescriptor {
  /** The tools of this namespace, by name; own properties only. */
  readonly fns?: Readonly<Record<string, ToolFunction>>;
}

/**
 * How a caller writes a run's fetch: `null` disables it, a function (`Outbound`) proxies it
 * through the caller, `undefined` written explicitly has the executor perform it natively.
 */
export type OutboundSetting<Outbound> = Outbound | null | undefined;

/** The functions of a request that never cross: the tools' dispatch and a proxied run's fetch. */
export interface HostFunctions<Outbound> {
  /** Serves the tool calls; without one every tool is unknown. */
  readonly dispatch?: DispatchFunction | undefined;
  /** Serves the fetches of a run whose wire mode is `proxied`. */
  readonly outbound?: Outbound | undefined;
}

/** The wire mode of an outbound setting, or undefined for a value that is none of the three. */
export function outboundMode(setting: unknown): OutboundMode | undefined {
  if (setting === null) return 'disabled';
  if (setting === undefined) return 'native';
  return typeof setting === 'function' ? 'proxied' : undefined;
}

/**
 * The descriptors that cross the wire: everything but the functions. Other keys stay, so the
 * schema names a misspelt one instead of it vanishing here.
 */
export function describeProviders(providers: readonly ToolProvider[]): ProviderDescriptor[] {
  return providers.map(({ fns: _fns, ...descriptor }) => descriptor);
}

/**
 * One dispatch function over the providers' `fns`, falling back to a raw `dispatch` for namespaces
 * without them. Undefined when neither exists: every tool is then unknown. A tool's throw becomes
 * the error envelope, but for one `passThrough` claims, which leaves as the throw it is.
 */
export function buildDispatch(
  providers: readonly ToolProvider[],
  fallback: DispatchFunction | undefined,
  passThrough?: (error: unknown) => boolean,
): DispatchFunction | undefined {
  const served = new Map<string, Readonly<Record<string, ToolFunction>>>();
  for (const provider of providers) if (provider.fns) served.set(provider.name, provider.fns);
  if (served.size === 0) return fallback;
  return async (provider, tool, argsJson) => {
    const fns = served.get(provider);
    if (!fns) {
      return fallback ? fallback(provider, tool, argsJson) : toolNotFoundEnvelope(provider, tool);
    }
    // Own properties only: `toString` or `constructor` must not resolve to Object.prototype's.
    const fn = Object.hasOwn(fns, tool) ? fns[tool] : undefined;
    if (typeof fn !== 'function') return toolNotFoundEnvelope(provider, tool);
    try {
      const args = parseForDispatch(argsJson);
      const result = await (Array.isArray(args) ? fn(...(args as never[])) : fn(args as never));
      return stringifyForDispatch({ result });
    } catch (error) {
      // What the caller reads itself (a client's pause signal) leaves as the throw it is.
      if (passThrough?.(error) === true) throw error;
      return stringifyForDispatch({ error: errorText(error) });
    }
  };
}
