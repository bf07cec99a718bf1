/**
 * Connectors: namespaces served by a binding instead of a record of fns. Every call of
 * `name.tool(first, ...)` becomes `binding.callTool('tool', first)`, whatever the tool, as the
 * contract's own executor does; the tool name is not sanitized, since no list of names exists to
 * sanitize ahead of time.
 *
 * A binding that `@cloudflare/codemode`'s runtime builds answers some calls with a control value
 * instead of a result (`{ __codemode_control__: 'error', message }`, or `'pause'` when an action
 * awaits approval); the program meets those as thrown errors, as it would there.
 */
import {
  BadRequestError,
  errorText,
  parseForDispatch,
  stringifyForDispatch,
  toolNotFoundEnvelope,
} from '@supolka/codemode-protocol/wire';
import type { DispatchFunction } from '../sandbox/dispatch.ts';
import type { CodeModeConnector } from './contract.ts';
import { CONNECTORS_MESSAGE, connectorMessage } from './errors.ts';

const CONTROL_KEY = '__codemode_control__';
/** The text the runtime's pause is thrown with, so a runtime reading the outcome recognises it. */
const PAUSE_TEXT = '__CODEMODE_PAUSE__';

/** The connectors of the contract's options, checked; throws BadRequestError naming what is wrong. */
export function checkConnectors(connectors: unknown): readonly CodeModeConnector[] {
  if (connectors === undefined) return [];
  if (!Array.isArray(connectors)) throw new BadRequestError(CONNECTORS_MESSAGE);
  connectors.forEach((connector: unknown, index) => {
    const { name, binding } = (connector ?? {}) as { name?: unknown; binding?: { callTool?: unknown } };
    if (typeof name !== 'string' || typeof binding?.callTool !== 'function') {
      throw new BadRequestError(connectorMessage(index));
    }
  });
  return connectors as readonly CodeModeConnector[];
}

/** One dispatch function over the connectors, answering each call with the result envelope. */
export function serveConnectors(connectors: readonly CodeModeConnector[]): DispatchFunction | undefined {
  if (connectors.length === 0) return undefined;
  const byName = new Map(connectors.map((connector) => [connector.name, connector.binding]));
  return async (provider, tool, argsJson) => {
    const binding = byName.get(provider);
    if (!binding) return toolNotFoundEnvelope(provider, tool);
    try {
      const args = parseForDispatch(argsJson);
      const value = await binding.callTool(tool, Array.isArray(args) ? args[0] : args);
      const control = controlError(value);
      return stringifyForDispatch(control === undefined ? { result: value } : { error: control });
    } catch (error) {
      return stringifyForDispatch({ error: errorText(error) });
    }
  };
}

function controlError(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, CONTROL_KEY)) return undefined;
  const { [CONTROL_KEY]: control, message } = value as Record<string, unknown>;
  if (control === 'pause') return PAUSE_TEXT;
  if (control === 'error') return String(message);
  return undefined;
}
