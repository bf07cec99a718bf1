/**
 * The tool proxies of a case Worker (workerd side): the provider namespaces the entry declares,
 * with the executor's semantics (docs/protocol.md, "The entry contract"), over the ToolDispatcher
 * the host hands the harness. Module name in the case Worker: __codemode_support.js.
 */
import { parseForDispatch, stringifyForDispatch } from './__codemode_codec.js';

// The protocol's text for a tool answer that is not a result envelope (DISPATCH_OUTSIDE_ENVELOPE_MESSAGE).
const OUTSIDE_ENVELOPE = 'The dispatch answered outside the result envelope.';

// Bound at load, before any case code runs, as the executor binds its own.
const ProxyCtor = Proxy;
const PromiseCtor = Promise;
const ErrorCtor = Error;
const StringCtor = String;
const hasOwn = Object.hasOwn;

let dispatcher;

/** The harness connects the run's dispatcher before it imports the entry. */
export function connectDispatcher(value) {
  dispatcher = value;
}

async function callTool(provider, tool, argsJson) {
  const resultJson = await dispatcher.call(provider, tool, argsJson);
  let data;
  try {
    data = parseForDispatch(resultJson);
  } catch {
    data = null;
  }
  if (data === null || typeof data !== 'object') throw new ErrorCtor(OUTSIDE_ENVELOPE);
  if (hasOwn(data, 'error') && data.error) throw new ErrorCtor(data.error);
  return hasOwn(data, 'result') ? data.result : undefined;
}

const reject = (error) => new PromiseCtor((_resolve, fail) => fail(error));

/**
 * One provider's namespace: own properties win over tools, symbols and 'then' are never tools (the
 * namespace is not thenable), positional providers get the argument list and the others one
 * object ({} when called with none).
 */
export function __provider(name, positional) {
  return new ProxyCtor(
    {},
    {
      get: (target, toolName) => {
        if (hasOwn(target, toolName)) return target[toolName];
        if (typeof toolName === 'symbol' || toolName === 'then') return undefined;
        const tool = StringCtor(toolName);
        return (...args) => {
          try {
            const payload = positional ? args : args.length === 0 || args[0] === undefined ? {} : args[0];
            return callTool(name, tool, stringifyForDispatch(payload));
          } catch (error) {
            return reject(error);
          }
        };
      },
    },
  );
}
