/**
 * The entry module: the request's imports, the provider namespaces, and the user arrow handed to
 * __startRun. The arrow is wrapped, never rewritten, and sits on lines of its own, so a trailing
 * line comment in user code cannot swallow the invocation.
 *
 * Two things differ from the entry the sandbox's specification lists, both because of released
 * isolated-vm (docs/sandbox.md, "Deviations from the specification, and why"): the codec and the
 * run's machinery come from the internal module instead of sitting in the entry's own scope (user
 * modules evaluate before the entry body, and could otherwise replace what the envelope depends
 * on), and the entry has no top-level await, so its evaluation settles exactly when the static
 * graph has run and a module that threw is reported. The preludes therefore run at the start of the
 * function __startRun calls, in the run's scope. That function awaits the arrow's promise instead
 * of returning it: returning a promise from an async function resolves through its 'then', which a
 * program may have replaced; await does not.
 */

import type { ProviderDescriptor } from '@supolka/codemode-protocol/wire';
import { executionTimeoutMessage } from '@supolka/codemode-protocol/wire';
import { lineCount } from '../errors/positions.ts';
import { buildProviderSources } from '../proxy-source.ts';
import { INTERNAL_SPECIFIER } from './internal-module.ts';

export interface EntryParts {
  /** The leading import declarations, as separateImports found them. */
  readonly imports: readonly string[];
  /** The arrow expression. */
  readonly body: string;
  readonly providers: readonly ProviderDescriptor[];
  /** The run bound, which the timeout message names. */
  readonly timeout: number;
  /** Retain the isolate when the arrow resolves to a fetch handler. */
  readonly retainHandles?: boolean;
  /** A durable run's start: the random seed (four 32-bit words) and the clock's first reading. */
  readonly durable?: DurableStart;
}

export interface DurableStart {
  readonly seed: readonly [number, number, number, number];
  readonly startedAt: number;
}

export function buildEntrySource(parts: EntryParts): string {
  return buildEntry(parts).source;
}

/** The entry's source, and the lines the request's imports and arrow occupy in it (errors/positions.ts). */
export interface BuiltEntry {
  readonly source: string;
  /** Each import declaration, then the arrow: its text and the 1-based entry line it starts on. */
  readonly placed: readonly { readonly text: string; readonly entryLine: number }[];
  /** The line after the arrow, where the entry calls it: `)();` and nothing else (errors/hint.ts). */
  readonly callLine: number;
}

export function buildEntry(parts: EntryParts): BuiltEntry {
  const { declarations, preludes } = buildProviderSources(parts.providers);
  const body = withoutTrailingSemicolons(parts.body);
  const placed: { text: string; entryLine: number }[] = [];
  let line = 2;
  for (const declaration of parts.imports) {
    placed.push({ text: declaration, entryLine: line });
    line += lineCount(declaration);
  }
  // An empty import list still leaves its (empty) line.
  if (parts.imports.length === 0) line++;
  line += lineCount(declarations) + 1 + lineCount(preludes) + 1;
  placed.push({ text: body, entryLine: line });
  const source = `import { __provider, __startRun } from ${JSON.stringify(INTERNAL_SPECIFIER)};
${parts.imports.map((declaration) => `${declaration};`).join('\n')}
${declarations}
__startRun(async () => {
${preludes}
return await (
${body}
)();
}, ${JSON.stringify(executionTimeoutMessage(parts.timeout))}, ${parts.retainHandles === true}${durableArgument(parts.durable)});
`;
  return { source, placed, callLine: line + lineCount(body) };
}

/** The durable start as startRun's fourth argument: numbers only, checked here, so nothing else reaches the source. */
function durableArgument(durable: DurableStart | undefined): string {
  if (durable === undefined) return '';
  const words = [...durable.seed, durable.startedAt];
  if (!words.every((word) => Number.isSafeInteger(word)))
    throw new TypeError('A durable start is integers only.');
  return `, [${words.join(', ')}]`;
}

/**
 * Code as an editor leaves it often ends its arrow with a semicolon (so does docs/protocol.md's
 * example); inside the call's parentheses that is a syntax error. An expression cannot end in a
 * semicolon of its own, so trailing ones are dropped; one at the end of a trailing line comment
 * is dropped harmlessly. Linear in the body, as everything before the isolate runs must be.
 */
function withoutTrailingSemicolons(body: string): string {
  // A walk back from the end, not /[\s;]+$/: the regular expression retries from every position
  // of a long whitespace run, which is quadratic in it.
  let end = body.length;
  while (end > 0 && /[\s;]/.test(body[end - 1] as string)) end--;
  return body.slice(0, end);
}
