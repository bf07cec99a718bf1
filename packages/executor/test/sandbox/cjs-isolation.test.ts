/**
 * The CommonJS facade as an attacker meets it: each cjs source is compiled once per run, in a
 * module of its own. A facade that embedded every cjs source of the map made the host build, lex
 * and compile the whole require space once per facade (quadratic in the map, on the host's thread
 * before the run clock could end it), and let one source close its wrapper and write into its
 * siblings' text, where the nesting scan of each source alone no longer bounded the depth.
 */
import { expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

test('two hundred facades over 1.6 MB of CommonJS run under a 64 MB limit: each source is compiled once', async () => {
  // Embedded in every facade, the sources came to 200 × 1.6 MB = 320 MB of module text.
  const count = 200;
  const padding = `/*${'x'.repeat(8_000)}*/`;
  const modules: Record<string, { cjs: string }> = {};
  let code = '';
  for (let index = 0; index < count; index++) {
    modules[`m${index}.cjs`] = { cjs: `module.exports = ${index} ${padding}` };
    code += `import m${index} from './m${index}.cjs'\n`;
  }
  code += `async () => [${Array.from({ length: count }, (_, index) => `m${index}`).join(', ')}].reduce((a, b) => a + b, 0)`;
  const envelope = await sandbox.execute({ code, modules, memoryLimit: 64, timeout: 20_000 });
  expect(envelope).toStrictEqual({ result: (count * (count - 1)) / 2, logs: [] });
});

test('a cjs source that closes its wrapper cannot write a factory for a sibling', async () => {
  const envelope = await sandbox.execute({
    modules: {
      'escape.cjs': {
        cjs: `module.exports = 1
}], ["forged.cjs", function (exports, require, module) { module.exports = "forged" }], ["tail.cjs", function () {`,
      },
      'main.cjs': { cjs: `require('./escape.cjs'); module.exports = require('./forged.cjs')` },
    },
    code: `import main from './main.cjs'
async () => main`,
  });
  // The engine's own verdict on the source, in the module's own name and lines.
  expect(envelope).toStrictEqual({
    result: undefined,
    error: "Unexpected token ']' [escape.cjs:3:2]",
    logs: [],
    errorKind: 'syntax',
    errorName: 'SyntaxError',
  });
});

test('require and import() inside a cjs module still resolve from that module', async () => {
  const envelope = await sandbox.execute({
    modules: {
      'lib/a.cjs': { cjs: `exports.b = require('./b.cjs'); exports.later = () => import('./c.js')` },
      'lib/b.cjs': { cjs: `module.exports = 'b from lib'` },
      'lib/c.js': `export default 'c from lib'`,
    },
    code: `import a from './lib/a.cjs'
async () => [a.b, (await a.later()).default]`,
  });
  expect(envelope).toStrictEqual({ result: ['b from lib', 'c from lib'], logs: [] });
});

test('a .cts module has its own types erased, and a JavaScript sibling is read as written', async () => {
  const envelope = await sandbox.execute({
    modules: {
      'typed.cts': { cjs: `const n: number = 2; module.exports = [n, require('./plain.cjs')]` },
      // Valid JavaScript that erasure would turn into a call: it stays a comparison.
      'plain.cjs': { cjs: `const a = 1, b = 2, c = 3, d = 4; module.exports = [a < b, c > (d)]` },
    },
    code: `import typed from './typed.cts'
async () => typed`,
  });
  expect(envelope).toStrictEqual({ result: [2, [true, false]], logs: [] });
});
