import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

test('the package bundles for a neutral platform with no Node built-in and no Node global', async () => {
  const result = await build({
    entryPoints: [new URL('./index.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'neutral',
    format: 'esm',
    mainFields: ['module', 'main'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  expect(inputs.filter((input) => builtins.has(input) || input.startsWith('node:'))).toStrictEqual([]);
  const text = result.outputFiles[0]?.text ?? '';
  // `__dirname` as a name the code reads; INTERNAL_NAMES lists it as a string (a CommonJS factory
  // in the isolate binds it), which reads nothing.
  expect(text).not.toMatch(
    /\bprocess\.(env|version|nextTick)|\bBuffer\.|\brequire\(|(?<!")\b__dirname\b(?!")|isolated-vm/,
  );
  // Workers refuse code generation from strings; nothing here may rely on it.
  expect(text).not.toMatch(/\bnew Function\(|\beval\(/);
});
