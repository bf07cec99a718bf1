/**
 * The question an `ask` puts to the person approving a call. It must show what the call does,
 * whole and in an order the program cannot choose: the server and the tool as the config and the
 * upstream name them (every character past plain ASCII written as an escape, so a look-alike name
 * shows itself), then the arguments in the tool's input-schema order, required ones first, and the
 * ones the schema does not name after them, by name. Values are JSON made safe (the executor's
 * safe-text.ts). A question past QUESTION_LIMIT is never asked cut: the caller refuses the call
 * instead.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { isPlainAscii, safeText } from '@supolka/codemode-executor/serving';
import { approvalQuestion, lookAlikeServerWarning, NOT_ASCII_SERVER_WARNING } from './texts.ts';

/** Characters a question may have: about a screen of text a person can read before deciding. */
export const QUESTION_LIMIT = 2000;

export interface QuestionParts {
  /** The config key of the server called. */
  readonly server: string;
  /** Every configured server's key, to find the ones this server's name imitates. */
  readonly servers: readonly string[];
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
}

export function questionFor(parts: QuestionParts): string {
  const lines = argumentOrder(parts.tool.inputSchema, Object.keys(parts.args)).map(
    (key) => `  ${shownName(key)}: ${shownValue(parts.args[key])}`,
  );
  return approvalQuestion(shownName(parts.server), shownName(parts.tool.name), warnings(parts), lines);
}

/** Required properties, then the other declared ones, in the schema's order; then the rest by name. */
function argumentOrder(schema: Tool['inputSchema'], given: readonly string[]): string[] {
  const present = new Set(given);
  const declared = Object.keys(schema.properties ?? {});
  // Sets, not arrays searched per name: the upstream writes the schema, and a list of 50000
  // required names searched in 50000 properties held the bridge's thread for 14 s.
  const isDeclared = new Set(declared);
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const order = [
    ...declared.filter((key) => required.has(key)),
    ...[...required].filter((key) => !isDeclared.has(key)),
    ...declared.filter((key) => !required.has(key)),
  ];
  const known = new Set(order);
  const rest = given.filter((key) => !known.has(key)).sort();
  return [...order.filter((key) => present.has(key)), ...rest];
}

/** A name quoted, with every character outside printable ASCII written as its escape. */
function shownName(name: string): string {
  return safeText(JSON.stringify(name)).replace(
    /[^\x20-\x7e\n]/g,
    (char) => `\\u${(char.charCodeAt(0) as number).toString(16).padStart(4, '0')}`,
  );
}

function shownValue(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined;
  }
  return safeText(json ?? String(value));
}

function warnings(parts: QuestionParts): string[] {
  const found: string[] = [];
  if (!isPlainAscii(parts.server)) found.push(NOT_ASCII_SERVER_WARNING);
  const own = skeleton(parts.server);
  for (const other of parts.servers) {
    if (other !== parts.server && skeleton(other) === own)
      found.push(lookAlikeServerWarning(shownName(other)));
  }
  return found;
}

/**
 * What a name looks like, roughly: compatibility forms folded, case dropped, separators removed,
 * and the characters most often swapped for one another (digits for letters, `rn` for `m`, the
 * Cyrillic and Greek letters that look Latin) made one. Two names of one skeleton look alike.
 */
function skeleton(name: string): string {
  let text = name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[-_.\s]/g, '');
  for (const [from, to] of LOOK_ALIKES) text = text.replaceAll(from, to);
  return text;
}

const LOOK_ALIKES: readonly (readonly [string, string])[] = [
  ['rn', 'm'],
  ['vv', 'w'],
  ['0', 'o'],
  ['1', 'l'],
  ['i', 'l'],
  ['|', 'l'],
  ['5', 's'],
  ['а', 'a'],
  ['е', 'e'],
  ['о', 'o'],
  ['р', 'p'],
  ['с', 'c'],
  ['х', 'x'],
  ['у', 'y'],
  ['і', 'l'],
  ['ѕ', 's'],
  ['ο', 'o'],
  ['α', 'a'],
  ['ν', 'v'],
  ['ρ', 'p'],
  ['ι', 'l'],
];
