/**
 * The approval question (approval-question.ts) built from a schema a hostile upstream wrote: the
 * upstream names the properties and the required list, so building the order must cost no more
 * than reading them. Before, each required name was searched for in the list of properties.
 */
import { expect, test } from 'vitest';
import { questionFor } from '../src/approval-question.ts';
import { approvalQuestion } from '../src/texts.ts';

test('a schema of 100000 properties and as many required names not among them orders the arguments at once', () => {
  const width = 100_000;
  const properties = Object.fromEntries(Array.from({ length: width }, (_, index) => [`p${index}`, {}]));
  const required = Array.from({ length: width }, (_, index) => `r${index}`);
  const question = questionFor({
    server: 'bad',
    servers: ['bad'],
    tool: { name: 'wide', inputSchema: { type: 'object', properties, required } },
    args: { extra: 'x', p7: 7, r3: 3 },
  });
  // Required names first, then the declared ones, then the rest by name.
  expect(question).toBe(
    approvalQuestion('"bad"', '"wide"', [], ['  "r3": 3', '  "p7": 7', '  "extra": "x"']),
  );
});
