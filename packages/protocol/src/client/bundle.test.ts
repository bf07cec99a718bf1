/**
 * The client as runtimes without a package manager load it: dist/client.bundle.js (built by
 * scripts/build-client.ts) must import nothing, reach no Node built-in or global, and export the
 * same client the package does. Its behaviour against a real server is tested in
 * packages/server/test, from Node and from Deno.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { expect, test } from 'vitest';
import * as source from './index.ts';

const bundleUrl = new URL('../../dist/client.bundle.js', import.meta.url);

test('the bundle is one ESM file that imports nothing and names no Node built-in or global', () => {
  const text = readFileSync(bundleUrl, 'utf8');
  expect(text).not.toMatch(/\bimport\s*[\s{*"'(]|\brequire\(/);
  expect(text).not.toMatch(/\bprocess\.(env|version|nextTick)|\bBuffer\.|\b__dirname\b/);
  for (const name of builtinModules) expect(text).not.toContain(`"node:${name}"`);
  // Workers refuse code generation from strings; nothing here may rely on it.
  expect(text).not.toMatch(/\bnew Function\(|\beval\(/);
});

test('the bundle exports what the package subpath exports, and zod keeps its English texts only', async () => {
  const bundle = await import(bundleUrl.href);
  expect(Object.keys(bundle).sort()).toStrictEqual(Object.keys(source).sort());
  expect(bundle.PROTOCOL_VERSION).toBe(source.PROTOCOL_VERSION);
  const meta = JSON.parse(
    readFileSync(new URL('../../dist/client.bundle.meta.json', import.meta.url), 'utf8'),
  );
  const locales = Object.keys(meta.inputs).filter((input) => /zod\/v4\/locales\/(?!index|en\.)/.test(input));
  expect(locales).toStrictEqual([]);
});

test('the texts both ends share read as the tests of the server assert them', () => {
  expect(source.connectionClosedMessage(1006, '')).toBe('The connection to the executor closed (code 1006).');
  expect(source.connectionClosedCause(1001, 'server shutting down')).toBe(
    'the connection to the executor closed (code 1001: server shutting down)',
  );
  expect(source.CLOSE_CODES).toStrictEqual({
    normal: 1000,
    goingAway: 1001,
    protocol: 4400,
    unauthorized: 4401,
  });
});
