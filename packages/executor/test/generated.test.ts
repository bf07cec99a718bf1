/** The generated sources are what their generator produces from the sources today. */
import { expect, test } from 'vitest';
import { stale } from '../../../tools/executor/generate-runtime-bundle.ts';

test('regenerating the runtime bundle, the codec source and the sandbox sources changes nothing', async () => {
  expect(await stale()).toStrictEqual([]);
});
