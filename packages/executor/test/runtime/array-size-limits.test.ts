/**
 * The size check on String.prototype.split (runtime array-size-limits.ts) seen from ordinary
 * programs: every input that does not reach the largest array behaves exactly as the builtin
 * does. Each case runs in the sandbox (the guard) and in this test's own process (Node 24's
 * V8, the same engine, with the builtin), and the two answers must be equal, side effects and
 * their order included. The programs that reach the maximum run in children of their own
 * (test/sandbox/array-size-limits.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { T, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

/** Each case: a program body returning something JSON can carry; `t` catches into 'Name: message'. */
const CASES: Record<string, string> = {
  strings: `return [
    'a,b,c'.split(','), 'a,b,c'.split(''), 'a,b,c'.split(), 'a,b,c'.split(undefined), 'a,,b,'.split(','),
    ''.split(','), ''.split(''), 'abc'.split('abc'), 'abcabc'.split('bc'), 'aaa'.split('aa'),
    '\\u{1F600}x\\u{1F600}'.split(''), '\\u{1F600}x\\u{1F600}'.split('x'), 'ä-ö'.split('-'),
  ];`,
  limits: `const s = 'a,b,c,d';
    return [0, 1, 2, -1, 2 ** 32, 2 ** 32 + 2, 1.9, NaN, Infinity, '2', null, true, [3]].map((l) => s.split(',', l))
      .concat([s.split('', 2), s.split(undefined, 0), s.split(undefined, 1)])
      .concat([1n, Symbol('l')].map((l) => t(() => s.split(',', l))));`,
  separators: `const s = '1a2null3undefined4true5';
    return [null, 1, 'a', true, { toString: () => '2' }, [3], 2n].map((sep) => t(() => s.split(sep)));`,
  regular_expressions: `return [
    'a1b22c'.split(/\\d+/), 'a1b22c'.split(/(\\d)/), 'abc'.split(/(?:)/), 'abc'.split(/(?:)/u, 2),
    'A-b_C'.split(/[-_]/i), 'x'.split(/y/g), '\\u{1F600}\\u{1F600}'.split(/(?:)/u),
  ];`,
  receivers: `const split = String.prototype.split;
    return [12345, 1.5, true, ['a,b', 'c'], { toString: () => 'p,q' }, new String('s,t'), Symbol('x'), 10n]
      .map((r) => t(() => split.call(r, ',')))
      .concat([t(() => split.call(null, ',')), t(() => split.call(undefined, ','))]);`,
  conversion_order: `const log = [];
    const receiver = { toString() { log.push('receiver'); return 'a-b-c'; } };
    const separator = { [Symbol.split]: undefined, toString() { log.push('separator'); return '-'; } };
    const limit = { valueOf() { log.push('limit'); return 2; } };
    const pieces = String.prototype.split.call(receiver, separator, limit);
    return [pieces, log];`,
  custom_splitter: `const log = [];
    const separator = { [Symbol.split](s, l) { log.push([typeof s, String(s), l, this === separator]); return 'mine'; } };
    const result = [
      'abc'.split(separator, 5),
      String.prototype.split.call(42, separator),
      String.prototype.split.call({ toString() { log.push('receiver converted'); return 'x'; } }, separator),
    ];
    return [result, log];`,
  splitter_not_callable: `return [t(() => 'abc'.split({ [Symbol.split]: 1 })), t(() => 'abc'.split({ [Symbol.split]: null, toString: () => 'b' }))];`,
  throwing_conversions: `const boom = (where) => ({ toString() { throw new Error(where); }, valueOf() { throw new Error(where); } });
    return [
      t(() => String.prototype.split.call(boom('receiver'), boom('separator'), boom('limit'))),
      t(() => 'x'.split(boom('separator'), boom('limit'))),
      t(() => 'x'.split(',', boom('limit'))),
      t(() => 'x'.split({ get [Symbol.split]() { throw new Error('getter'); } })),
    ];`,
  subclassed_regexp: `class Words extends RegExp { [Symbol.split](s, l) { return ['words', s, l]; } }
    return ['a b'.split(new Words(' ')), 'a b'.split(new Words(' '), 1)];`,
  shape: `const split = String.prototype.split;
    const d = Object.getOwnPropertyDescriptor(String.prototype, 'split');
    return [split.name, split.length, String(split), typeof split, 'prototype' in split,
      d.writable, d.enumerable, d.configurable, t(() => new split(',')), Object.getOwnPropertyNames(split).sort()];`,
  replaced_by_the_program: `const original = String.prototype.split;
    String.prototype.split = function () { return ['replaced']; };
    const replaced = 'a,b'.split(',');
    String.prototype.split = original;
    return [replaced, 'a,b'.split(',')];`,
};

/** The answer of the builtin: the same body run here, in Node 24. */
function expected(body: string): unknown {
  const run = new Function(`${T} return (() => { ${body} })();`) as () => unknown;
  return JSON.parse(JSON.stringify(run()));
}

describe('String.prototype.split under the size check', () => {
  for (const [name, body] of Object.entries(CASES)) {
    test(`${name.replaceAll('_', ' ')}: the same answer as the builtin`, async () => {
      const envelope = await sandbox.execute({ code: `async () => { ${T} ${body} }` });
      expect(envelope.error).toBeUndefined();
      expect(envelope.result).toStrictEqual(expected(body));
    });
  }
});
