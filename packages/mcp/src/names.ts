/**
 * The names a program calls upstreams by: each config key becomes a namespace and each upstream
 * tool a function on it, both made identifiers exactly as the Code Mode sanitizer makes tool names
 * (codemode/sanitize.ts), so a name here is one the generated declarations and the program agree
 * on. Two names that become one, and a namespace the provider rules reserve, are refused naming both.
 */

import { sanitizeToolName } from '@supolka/codemode-executor';
import { UsageError } from '@supolka/codemode-executor/cli';
import { reservedReason } from '@supolka/codemode-protocol';
import { serverNameCollisionMessage, serverNameReservedMessage, toolNameCollisionMessage } from './texts.ts';

/** Config key → namespace, in the file's order. Throws a UsageError naming the keys at fault. */
export function namespaceNames(keys: readonly string[]): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const keyOf = new Map<string, string>();
  for (const key of keys) {
    const name = sanitizeToolName(key);
    const reason = reservedReason(name);
    if (reason !== undefined) throw new UsageError(serverNameReservedMessage(key, name, reason));
    const earlier = keyOf.get(name);
    if (earlier !== undefined) throw new UsageError(serverNameCollisionMessage(earlier, key, name));
    keyOf.set(name, key);
    names.set(key, name);
  }
  return names;
}

export class ToolNameError extends Error {
  override name = 'ToolNameError';
}

/** Raw tool name → function name for one upstream's tools. Throws ToolNameError naming both. */
export function functionNames(server: string, tools: readonly string[]): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  const rawOf = new Map<string, string>();
  for (const raw of tools) {
    const name = sanitizeToolName(raw);
    const earlier = rawOf.get(name);
    if (earlier !== undefined) throw new ToolNameError(toolNameCollisionMessage(server, earlier, raw, name));
    rawOf.set(name, raw);
    names.set(raw, name);
  }
  return names;
}
