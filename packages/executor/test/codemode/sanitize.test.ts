/**
 * Tool names as the program calls them. Each rule is stated once with its own example, and the
 * whole list is checked against the real package's sanitizeToolName, so a name made differently
 * here (one the model was never told) fails this file.
 */
import { sanitizeToolName as theirs } from '@cloudflare/codemode';
import { describe, expect, test } from 'vitest';
import { sanitizeFns, sanitizeToolName } from '../../src/codemode/sanitize.ts';

const RULES: readonly [rule: string, name: string, identifier: string][] = [
  ['a hyphen becomes _', 'get-stock', 'get_stock'],
  ['a dot becomes _', 'files.read', 'files_read'],
  ['a space becomes _', 'list all', 'list_all'],
  ['other whitespace becomes _', 'a\tb\u00a0c', 'a_b_c'],
  ['other characters are dropped', 'price(€)!', 'price'],
  ['$ and _ stay', '$get_it', '$get_it'],
  ['a leading digit gets a leading _', '3d-print', '_3d_print'],
  ['a reserved word gets a trailing _', 'delete', 'delete_'],
  ['so does an old future-reserved word', 'int', 'int_'],
  ['and undefined', 'undefined', 'undefined_'],
  ['a name left empty is _', '€€', '_'],
  ['the empty name is _', '', '_'],
  ['characters outside the BMP are dropped', 'rocket🚀', 'rocket'],
  ['a name already an identifier stays', 'getStock', 'getStock'],
];

describe('sanitizeToolName', () => {
  test.each(RULES)('%s: %j is called %j', (_rule, name, identifier) => {
    expect(sanitizeToolName(name)).toBe(identifier);
  });

  test("every name above comes out as @cloudflare/codemode's own sanitizeToolName makes it", () => {
    const names = [...RULES.map(([, name]) => name), 'class', 'yield', 'let', 'a--b', '9', '.', 'é-x'];
    expect(names.map(sanitizeToolName)).toStrictEqual(names.map(theirs));
  });
});

describe('sanitizeFns', () => {
  test('keys the fns by the names the program calls', () => {
    const fn = () => 1;
    expect(Object.keys(sanitizeFns('codemode', { 'get-stock': fn, ok: fn }))).toStrictEqual([
      'get_stock',
      'ok',
    ]);
  });

  test('a tool named __proto__ is a key like any other', () => {
    const served = sanitizeFns('codemode', JSON.parse('{"__proto__": 1}') as never);
    expect(Object.keys(served)).toStrictEqual(['__proto__']);
  });

  test('two tools that end up with one name are refused, naming both', () => {
    expect(() => sanitizeFns('files', { 'read-all': () => 1, 'read.all': () => 2 })).toThrow(
      'Invalid Code Mode request: the tools "read-all" and "read.all" of provider files are both called read_all once their names are made identifiers; rename one of them.',
    );
  });
});
