/**
 * The rows of the packages a caller allows (docs/packages.md): a program imports an allowed
 * package statically, by a subpath its exports map offers, with import(), and through another
 * allowed package that imports it; and an import of anything else is module-not-found, naming the
 * allowed packages. Every door that takes a `packages` configuration meets them: the Sandbox a
 * bundle, IsolateExecutor (both forms) and the server their option, `run` its --packages flag and
 * the MCP bridge its config's key. The packages are the two in fixtures/packages (package-doors.ts).
 */
import { moduleNotFoundMessage } from '@supolka/codemode-protocol';
import type { Behaviour } from './door.ts';
import { ALLOWED_PACKAGES } from './package-doors.ts';

export const PACKAGE_ROWS: Behaviour[] = [
  {
    name: 'an allowed package, imported statically',
    imports: "import { pad } from 'matrix-text';",
    body: 'return pad(7, 3);',
    needs: ['packages'],
    expected: { result: '007', logs: [] },
  },
  {
    name: "an allowed package's subpath its exports map offers",
    imports: "import { shout } from 'matrix-text/shout';",
    body: "return shout('subpath');",
    needs: ['packages'],
    expected: { result: 'SUBPATH!', logs: [] },
  },
  {
    name: 'an allowed package loaded with import()',
    body: `const { pad } = await import('matrix-text');
const { shout } = await import('matrix-text/shout');
return [pad(42, 4), shout('late')];`,
    needs: ['packages'],
    expected: { result: ['0042', 'LATE!'], logs: [] },
  },
  {
    name: 'an allowed package that imports another, sharing its one copy',
    imports:
      "import { greet, shout as viaGreeting } from 'matrix-greeting';\nimport { shout } from 'matrix-text/shout';",
    body: "return [greet('matrix'), viaGreeting === shout];",
    needs: ['packages'],
    expected: { result: ['HELLO, MATRIX!', true], logs: [] },
  },
  {
    name: 'a package that is not allowed is not found, and the sentence names those that are',
    imports: "import leftPad from 'left-pad';",
    body: 'return leftPad;',
    needs: ['packages'],
    expected: {
      error: moduleNotFoundMessage('left-pad', 'executor.js', ALLOWED_PACKAGES),
      errorKind: 'module-not-found',
      logs: [],
    },
  },
  {
    name: 'a subpath the exports map does not offer is not found through import() either',
    body: `try {
  await import('matrix-text/index.js');
  return 'loaded';
} catch (error) {
  return error.message;
}`,
    needs: ['packages'],
    expected: {
      result: moduleNotFoundMessage('matrix-text/index.js', 'executor.js', ALLOWED_PACKAGES),
      logs: [],
    },
  },
];
