/**
 * The checker both describeTools and the MCP bridge run their JSON Schemas in, in its real thread:
 * each verdict, the draft a schema names read as that draft, a backtracking pattern ended at its
 * deadline while this thread goes on, and a thread that starts again after it was ended.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { problemsText, SchemaCheck, VALIDATION_TIMEOUT } from '../../src/tool-schemas/schema-check.ts';

const check = new SchemaCheck();
afterAll(() => check.close());

const CITY = {
  type: 'object',
  properties: { city: { type: 'string', pattern: '^[A-Z]' }, days: { type: 'integer', maximum: 7 } },
  required: ['city'],
  additionalProperties: false,
};

describe('verdicts', () => {
  test('a value that holds', async () => {
    expect(await check.check(CITY, { city: 'Oslo', days: 3 })).toStrictEqual({ kind: 'holds' });
  });

  test('a value that fails: every problem, with where it is and the rule', async () => {
    const verdict = await check.check(CITY, { city: 'oslo', days: 9.5, colour: 'red' });
    expect(verdict).toStrictEqual({
      kind: 'fails',
      problems: [
        { path: '', message: 'must NOT have additional properties', extraProperty: 'colour' },
        { path: '/city', message: 'must match pattern "^[A-Z]"' },
        { path: '/days', message: 'must be integer' },
        { path: '/days', message: 'must be <= 7' },
      ],
    });
    // The words ajv's errorsText gives them, which the bridge's output check quotes.
    expect(problemsText(verdict.kind === 'fails' ? verdict.problems : [])).toBe(
      'data must NOT have additional properties, data/city must match pattern "^[A-Z]", data/days must be integer, data/days must be <= 7',
    );
  });

  test('a schema that cannot be compiled', async () => {
    const verdict = await check.check({ type: 'string', pattern: '(' }, 'x');
    expect(verdict.kind).toBe('unreadable');
  });

  test('a schema that names draft 2020-12 is read as it: prefixItems make a tuple', async () => {
    const pair = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
      items: false,
    };
    expect(await check.check(pair, ['a', 1])).toStrictEqual({ kind: 'holds' });
    expect(await check.check(pair, ['a', 'b'])).toStrictEqual({
      kind: 'fails',
      problems: [{ path: '/1', message: 'must be number' }],
    });
    // Read as draft 7 (no $schema), `items: false` refuses every member, as the SDK's ajv did.
    const { $schema: _, ...unnamed } = pair;
    expect((await check.check(unnamed, ['a', 1])).kind).toBe('fails');
  });
});

describe('the deadline', () => {
  test('a backtracking pattern ends at VALIDATION_TIMEOUT while this thread goes on, and the next check runs', async () => {
    const order: string[] = [];
    // 2^40 steps of backtracking: far past any deadline.
    const slow = check.check({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`).then((verdict) => {
      order.push('check');
      return verdict;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    order.push('timer');
    expect(await slow).toStrictEqual({ kind: 'timeout', timeout: VALIDATION_TIMEOUT });
    expect(order).toStrictEqual(['timer', 'check']);
    expect(await check.check({ type: 'string', pattern: '^(a+)+$' }, 'aaaa')).toStrictEqual({
      kind: 'holds',
    });
  });

  test('a closed checker starts a thread again for its next check', async () => {
    const own = new SchemaCheck({ idleTimeout: 10 });
    expect(await own.check({ type: 'number' }, 1)).toStrictEqual({ kind: 'holds' });
    own.close();
    expect(await own.check({ type: 'number' }, 'x')).toStrictEqual({
      kind: 'fails',
      problems: [{ path: '', message: 'must be number' }],
    });
    own.close();
  });
});
