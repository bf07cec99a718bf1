/**
 * The execute request's `typescript` switch: optional, a boolean when present, and kept as sent so
 * the executor can tell "off" from "not said" (absent means on).
 */
import { describe, expect, test } from 'vitest';
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
