/** The generated sources are what their generator produces from the sources today. */
import { INTERNAL_NAMES } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { stale } from '../../../tools/executor/generate-runtime-bundle.ts';
import { internalNamesFile } from '../../../tools/executor/internal-names.ts';

test('regenerating the runtime bundle, the codec source, the sandbox sources and the internal names changes nothing', async () => {
  expect(await stale()).toStrictEqual([]);
});

/** The names the generated file lists, read back from its text. */
const listed = (file: string) => [...file.matchAll(/^ {2}'(__[^']*)',?$/gm)].map((match) => match[1]);

test('a name added to the sandbox’s sources is reserved by the next generation, lexed, not matched', async () => {
  const file = await internalNamesFile(
    [
      `globalThis.__published = 1; const __declared = 2; Object.defineProperty(globalThis, '__keyed', {});
       // __commented
       const words = '__not one name';`,
    ],
    '',
  );
  const names = listed(file);
  expect(names).toEqual(expect.arrayContaining(['__published', '__declared', '__keyed']));
  expect(names).not.toContain('__commented');
  expect(names).not.toContain('__not one name');
  // The entry the sandbox builds is always lexed: its imports are in every list.
  expect(names).toEqual(expect.arrayContaining(['__provider', '__startRun']));
  expect(
    names.filter((name) => !['__published', '__declared', '__keyed'].includes(name as string)),
  ).toStrictEqual(['__provider', '__startRun']);
});

test('the committed list reads back as the list the protocol reserves', async () => {
  const { readFile } = await import('node:fs/promises');
  const file = await readFile(
    new URL('../../protocol/src/generated/internal-names.generated.ts', import.meta.url),
    'utf8',
  );
  expect(listed(file)).toStrictEqual([...INTERNAL_NAMES]);
});
