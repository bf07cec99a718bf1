/**
 * Tool names as the program calls them. `@cloudflare/codemode` tells the model to call each tool
 * under a JavaScript identifier made from its name (`get-stock` becomes `codemode.get_stock`) but
 * hands the executor the functions under their raw names, so the executor makes the same
 * identifiers and serves each call under it. The rules, and the word list, are the contract's:
 * a name made differently here would be one the model was never told.
 */
import { BadRequestError } from '@supolka/codemode-protocol/wire';
import type { CodeModeFns } from './contract.ts';
import { toolNameCollisionMessage } from './errors.ts';

/** Names that become `name_`: the ECMAScript reserved words plus the older future-reserved ones. */
const RESERVED = new Set(
  (
    'abstract arguments await boolean break byte case catch char class const continue debugger default ' +
    'delete do double else enum eval export extends false final finally float for function goto if ' +
    'implements import in instanceof int interface let long native new null package private protected ' +
    'public return short static super switch synchronized this throw throws transient true try typeof ' +
    'undefined var void volatile while with yield'
  ).split(' '),
);

/**
 * `-`, `.` and whitespace become `_`; any other character outside `[A-Za-z0-9_$]` is dropped; a
 * name that starts with a digit gets a leading `_`, a reserved word a trailing one, and a name left
 * empty is `_`.
 */
export function sanitizeToolName(name: string): string {
  let identifier = '';
  for (const char of name) {
    if (char === '-' || char === '.' || /\s/u.test(char)) identifier += '_';
    else if (/[A-Za-z0-9_$]/.test(char)) identifier += char;
  }
  if (identifier === '') return '_';
  if (/[0-9]/.test(identifier.charAt(0))) identifier = `_${identifier}`;
  return RESERVED.has(identifier) ? `${identifier}_` : identifier;
}

/**
 * The provider's fns keyed by the names the program calls. Two tools that end up with one name
 * would make one of them unreachable, so that is refused, naming both.
 */
export function sanitizeFns(provider: string, fns: CodeModeFns): CodeModeFns {
  // No prototype: a tool named __proto__ must be a key like any other.
  const served: Record<string, CodeModeFns[string]> = Object.create(null);
  const rawNames = new Map<string, string>();
  for (const [raw, fn] of Object.entries(fns)) {
    const name = sanitizeToolName(raw);
    const earlier = rawNames.get(name);
    if (earlier !== undefined)
      throw new BadRequestError(toolNameCollisionMessage(provider, earlier, raw, name));
    rawNames.set(name, raw);
    served[name] = fn;
  }
  return served;
}
