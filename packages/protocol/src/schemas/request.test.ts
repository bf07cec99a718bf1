/**
 * The execute request's `typescript` switch: optional, a boolean when present, and kept as sent so
 * the executor can tell "off" from "not said" (absent means on). And the source limits, which the
 * schema and checkSourceLimits (for an in-process Sandbox) word alike.
 */
import { describe, expect, test } from 'vitest';
import { CODE_LIMIT, CODE_LIMIT_RULE, MODULE_SOURCE_LIMIT, MODULE_SOURCE_LIMIT_RULE } from '../limits.ts';
import { checkSourceLimits } from '../source-limits.ts';
import { validate } from '../validate.ts';
import { ExecuteRequestSchema } from './request.ts';

describe('typescript', () => {
  test.each([true, false])('%s is accepted and kept', (typescript) => {
    expect(
      validate(ExecuteRequestSchema, { code: 'async () => 1', typescript }, 'execute request'),
    ).toStrictEqual({
      code: 'async () => 1',
      typescript,
    });
  });

  test('absent stays absent: the receiver applies its default (on)', () => {
    const request = validate(ExecuteRequestSchema, { code: 'async () => 1' }, 'execute request');
    expect(Object.hasOwn(request, 'typescript')).toBe(false);
  });

  test.each([['yes'], [0], [null]])('%j is refused, naming the field', (typescript) => {
    expect(() => validate(ExecuteRequestSchema, { code: '', typescript }, 'execute request')).toThrow(
      'Invalid execute request: typescript must be a boolean.',
    );
  });
});

describe('the source limits', () => {
  test('code past CODE_LIMIT is refused, naming the limit', () => {
    const code = 'x'.repeat(CODE_LIMIT + 1);
    const message = `Invalid execute request: code ${CODE_LIMIT_RULE}.`;
    expect(() => validate(ExecuteRequestSchema, { code }, 'execute request')).toThrow(message);
    expect(() => checkSourceLimits(code, undefined)).toThrow(message);
    expect(validate(ExecuteRequestSchema, { code: code.slice(1) }, 'execute request').code).toHaveLength(
      CODE_LIMIT,
    );
  });

  test.each([
    ['a bare string', (source: string) => source, 'modules["lib.js"]'],
    ['js', (source: string) => ({ js: source }), 'modules["lib.js"].js'],
    ['cjs', (source: string) => ({ cjs: source }), 'modules["lib.js"].cjs'],
  ])('a module source (%s) past MODULE_SOURCE_LIMIT is refused, naming the module', (_kind, entry, path) => {
    const modules = { 'lib.js': entry('x'.repeat(MODULE_SOURCE_LIMIT + 1)) };
    const message = `Invalid execute request: ${path} ${MODULE_SOURCE_LIMIT_RULE}.`;
    expect(() => validate(ExecuteRequestSchema, { code: '', modules }, 'execute request')).toThrow(message);
    expect(() => checkSourceLimits('', modules)).toThrow(message);
  });

  test('a module at the limit, and text modules past it, pass', () => {
    const modules = {
      'a.js': 'x'.repeat(MODULE_SOURCE_LIMIT),
      'b.txt': { text: 'x'.repeat(MODULE_SOURCE_LIMIT + 1) },
    };
    expect(() => checkSourceLimits('', modules)).not.toThrow();
    expect(() => validate(ExecuteRequestSchema, { code: '', modules }, 'execute request')).not.toThrow();
  });
});
