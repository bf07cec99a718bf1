/**
 * The executor's committed generated sources, and the protocol's INTERNAL_NAMES, are what
 * scripts/generate-sources.ts produces from the sources today (the runtime bundle it lexes is the
 * runtime package's build, which turbo runs before this test). The runtime's own committed files
 * are checked by that package's `test`.
 */
import { INTERNAL_NAMES } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { stale } from '../scripts/generate-sources.ts';
import { internalNamesFile } from '../scripts/internal-names.ts';

test('regenerating the codec source, the sandbox sources and the internal names changes nothing', async () => {
  expect(await stale()).toStrictEqual([]);
});

/** The names the generated file lists, read back from its text. */
const listed = (file: string) => [...file.matchAll(/^ {2}'(__[^']*)',?$/gm)].map((match) => match[1]);

test('a name added to the sandbox’s sources is reserved by the next generation, lexed, not matched', async () => {
  const without = listed(await internalNamesFile([], ''));
  const added = `globalThis.__published = 1; const __declared = 2; Object.defineProperty(globalThis, '__keyed', {});
    // __commented
    const words = '__not one name';`;
  const names = listed(await internalNamesFile([added], ''));
  expect(names.filter((name) => !without.includes(name))).toStrictEqual([
    '__declared',
    '__keyed',
    '__published',
  ]);
  // The sources the sandbox builds while it runs are always lexed: the entry's imports, the
  // linker's, the import() rewrite's global and the CommonJS wrapper's parameters.
  expect(without).toStrictEqual([
    '__dirname',
    '__enterGlobalScope',
    '__filename',
    '__loaded',
    '__provider',
    '__sandboxImport',
    '__startRun',
  ]);
});

test('the committed list reads back as the list the protocol reserves', async () => {
  const { readFile } = await import('node:fs/promises');
  const file = await readFile(
    new URL('../../protocol/src/generated/internal-names.generated.ts', import.meta.url),
    'utf8',
  );
  expect(listed(file)).toStrictEqual([...INTERNAL_NAMES]);
});
