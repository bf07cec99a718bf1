/**
 * node:crypto, loaded on its first use rather than with the module that names it. A pool child runs
 * without Node's startup snapshot, so every builtin it loads is compiled at its start: node:crypto
 * and the twenty modules behind it cost a child about 10 ms (a third of what it spends past the
 * child floor on its way to healthy), and a child that starts from a start handed on or kept on disk
 * hashes nothing (its checks are CRC-32s, sandbox/setup/start-check.ts). Only a program's crypto
 * calls, a retained execution's id, a module's cache key and a child that makes its own start need
 * it (issue 28; test/executor/entry-points.test.ts holds a child and the main entry's import to it).
 */
import type * as Crypto from 'node:crypto';

export function nodeCrypto(): typeof Crypto {
  return process.getBuiltinModule('node:crypto');
}
