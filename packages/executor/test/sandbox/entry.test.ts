/** buildEntrySource and buildProviderSources on their own. */
import { separateImports } from '@supolka/codemode-protocol';
import { expect, test } from 'vitest';
import { buildEntrySource } from '../../src/sandbox/entry/entry.ts';
import { buildProviderSources } from '../../src/sandbox/proxy-source.ts';

test('proxies first, every prelude after all of them, proxySource verbatim, the conventions chosen', () => {
  expect(
    buildProviderSources([
      { name: 'a', prelude: 'a.x = 1' },
      { name: 'b', positionalArgs: false, prelude: 'b.y = a.x' },
      { name: 'c', proxySource: 'const c = {};' },
      { name: 'd', positionalArgs: true },
    ]),
  ).toStrictEqual({
    declarations:
      'const a = __provider("a", true);\nconst b = __provider("b", false);\nconst c = {};\nconst d = __provider("d", true);',
    preludes: 'a.x = 1\nb.y = a.x',
  });
});

test('the entry keeps the imports and wraps the arrow without rewriting it, on lines of its own', () => {
  const code =
    "import { greet } from 'greeter'\nasync () => greet(await files.read('notes.txt')) // trailing";
  const { imports, body } = separateImports(code);
  const source = buildEntrySource({ imports, body, providers: [{ name: 'files' }], timeout: 60000 });
  expect(source).toBe(`import { __provider, __startRun } from "codemode:sandbox";
import { greet } from 'greeter';
const files = __provider("files", true);
__startRun(async () => {

return await (

async () => greet(await files.read('notes.txt')) // trailing
)();
}, "Execution timed out at its 60000 ms bound. Do less work per run and return the part that is already finished.", false);
`);
  expect(source).toContain(body);
});

test('an arrow that ends with semicolons, as editors leave it, is the arrow', () => {
  const source = buildEntrySource({
    imports: [],
    body: 'async () => 1; ;\n\n',
    providers: [],
    timeout: 1000,
  });
  expect(source).toContain('return await (\nasync () => 1\n)();');
});
