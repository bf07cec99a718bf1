/**
 * The compat suite's rule for errorKind (src/executor/error-kind.ts): workerd has no such field,
 * so the executor's is checked for consistency, against envelopes of real runs.
 */
import { Sandbox } from '@supolka/codemode-executor/sandbox';
import { afterAll, expect, test } from 'vitest';
import { errorKindInconsistency } from '../src/executor/error-kind.ts';

const sandbox = new Sandbox();
afterAll(() => sandbox.dispose());

test('real envelopes hold together: a kind beside an error, none beside a success or a code', async () => {
  for (const code of [
    'async () => 1',
    'async () => { throw new Error("x") }',
    'async () => {',
    'async () => new Promise(() => {})',
  ]) {
    const envelope = await sandbox.execute({ code, timeout: 300 });
    expect(errorKindInconsistency(envelope)).toBeUndefined();
  }
});

test('an envelope that breaks the rule is named', () => {
  expect(errorKindInconsistency({ result: undefined, error: 'x', logs: [] })).toBe(
    `the executor's envelope has the error "x" and no code, but its errorKind is undefined, not one of the documented kinds`,
  );
  expect(
    errorKindInconsistency({
      result: undefined,
      error: 'late',
      code: 'TIMEOUT',
      errorKind: 'thrown',
      logs: [],
    }),
  ).toBe(`the executor's envelope carries errorKind "thrown" beside the code TIMEOUT`);
  expect(errorKindInconsistency({ result: 1, errorKind: 'syntax', logs: [] })).toBe(
    `the executor's envelope carries errorKind "syntax" on a success`,
  );
});
