/**
 * The `inspect` runtime piece (../src/pieces.ts): node-inspect-extracted, Node's util.inspect and
 * util.format taken from Node's own source, which is what workerd's console formats its arguments
 * with. A program's console uses it only when its request asks for `consoleFormat: 'inspect'`
 * (../src/console-format.ts), so it is a piece: out of the snapshot, its 51 KB compiled into an
 * isolate by the first line such a program writes. The package ships one UMD script that imports
 * nothing; the factory gives it a `module` to export into, and answers what it exported.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runtimeRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
// Its exports name no package.json: the main script's folder is dist/, one below the package.
const packageDir = dirname(
  dirname(createRequire(join(runtimeRoot, 'package.json')).resolve('node-inspect-extracted')),
);

/** The piece's factory source and the license text to carry beside it. */
export function inspectPiece() {
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const script = readFileSync(join(packageDir, 'dist/inspect.js'), 'utf8');
  if (/\brequire\(/.test(script.replace(/\bn\(\d+\)/g, '')))
    throw new Error('node-inspect-extracted now requires a module: the inspect piece cannot carry it');
  const source = `(function(){var module={exports:{}};var exports=module.exports;${script}\n;return module.exports;})`;
  const license = readFileSync(join(packageDir, 'LICENSE'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => ` *   ${line}`.trimEnd())
    .join('\n');
  return { source, licenses: ` * node-inspect-extracted ${version}:\n *\n${license}` };
}
