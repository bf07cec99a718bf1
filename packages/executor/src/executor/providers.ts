/**
 * Providers as a caller in this process hands them over: the wire descriptor plus the functions
 * that serve it. The descriptors cross to the child; the functions stay here, behind one dispatch
 * function that answers each tool call with the result envelope as codec JSON, so binary values
 * survive in both directions.
 */
import {
  errorText,
  type ProviderDescriptor,
  parseForDispatch,
  stringifyForDispatch,
  toolNotFoundEnvelope,
} from '@supolka/codemode-protocol';
import type { DispatchFunction } from '../sandbox/dispatch.ts';

/** A tool: called with the argument list (spread), or with one object when `positionalArgs` is false. */
export type ToolFunction = (...args: never[]) => unknown;

export interface HostProvider extends ProviderDescriptor {
  /** The tools of this namespace, by name. Without them its calls go to the request's `dispatch`. */
  readonly fns?: Readonly<Record<string, ToolFunction>>;
}

/**
 * The descriptors that cross the wire: everything but the functions. Other keys stay, so the
 * schema names a misspelt one instead of it vanishing here.
 */
export function describeProviders(providers: readonly HostProvider[]): ProviderDescriptor[] {
  return providers.map(({ fns: _fns, ...descriptor }) => descriptor);
}

/**
 * One dispatch function over the providers' `fns`, falling back to the request's raw `dispatch`
 * for namespaces without them. Undefined when neither exists: every tool is then unknown.
 */
export function buildDispatch(
  providers: readonly HostProvider[],
  fallback: DispatchFunction | undefined,
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
      return stringifyForDispatch({ error: errorText(error) });
    }
  };
}
