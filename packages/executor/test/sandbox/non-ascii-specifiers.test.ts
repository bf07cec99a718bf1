/**
 * Specifiers with characters past ASCII. isolated-vm hands the resolver of a static import the
 * specifier's UTF-8 bytes read as Latin-1 (`./é.js` came as `./Ã©.js`), so such a key of the module
 * map was never found and the not-found sentence named a text the program never wrote
 * (src/sandbox/modules/engine-specifier.ts). Each is now found, statically, dynamically and from
 * another module, and one that is no key is named as written.
 */
import { expect, test } from 'vitest';
import { programSpecifier } from '../../src/sandbox/modules/engine-specifier.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

test.each([
  ['a Latin letter', './é.js'],
  ['a bare name', 'ünïcode'],
  ['a character outside the first plane', './😀.js'],
  ['a CJK name in a folder', './模块/入口.js'],
  ['a name whose UTF-8 holds U+00C3 itself', './Ã.js'],
])('a module map key with %s is found statically, dynamically and from another module', async (_, key) => {
  const modules = {
    [key]: 'export const value = 1;',
    './relay.js': `export { value } from ${JSON.stringify(key)};`,
  };
  const code = `import { value } from ${JSON.stringify(key)}
import { value as relayed } from './relay.js'
async () => [value, relayed, (await import(${JSON.stringify(key)})).value]`;
  expect(await sandbox.execute({ code, modules })).toStrictEqual({ result: [1, 1, 1], logs: [] });
});

test('a specifier with characters past ASCII that is no key is named as the program wrote it', async () => {
  for (const code of [`import x from 'zöd'\nasync () => x`, `async () => (await import('zöd')).default`]) {
    expect((await sandbox.execute({ code })).error).toBe(
      "Cannot find module 'zöd' imported from executor.js: the module map has no such key.",
    );
  }
});

test('a key that differs from the import by Unicode normalization alone is not found', async () => {
  // Precomposed é (U+00E9) in the map, e and a combining acute (U+0301) in the import.
  const envelope = await sandbox.execute({
    modules: { './\u00e9.js': 'export default 1;' },
    code: `import x from './e\u0301.js'\nasync () => x`,
  });
  expect(envelope.error).toBe(
    "Cannot find module './e\u0301.js' imported from executor.js: the module map has no such key.",
  );
});

test('a specifier the engine could not have read as bytes is taken as it came', () => {
  expect(programSpecifier('./plain.js')).toBe('./plain.js');
  expect(programSpecifier('./模块.js')).toBe('./模块.js');
  // Latin-1 characters that are no UTF-8 as bytes were never UTF-8.
  expect(programSpecifier('./\u00e9t\u00e9.js')).toBe('./\u00e9t\u00e9.js');
  // isolated-vm 7.0.2, the workspace's engine, hands the resolver the text itself (7.0.1 handed
  // the UTF-8 bytes as Latin-1, and its `Ã©` was the program's `é`): here `Ã©` is what was written.
  expect(programSpecifier('./\u00c3\u00a9.js')).toBe('./\u00c3\u00a9.js');
});
