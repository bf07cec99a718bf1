/**
 * consoleFormat 'inspect' (issue 26 item 9): the console formats as workerd's does (Node's
 * util.format, the runtime's inspect piece), where the default stays the protocol's rule. The
 * lines below are what workerd 1.20261117.1 printed for the same calls, run by hand in a Worker
 * of compatibility date 2025-09-01; the compat suite's `console/inspect-*` cases diff the format
 * against workerd's own console output on every run.
 */
import { describe, expect, test } from 'vitest';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

const CODE = `async () => {
  console.log('x', { a: 1, b: [1, 2, { c: 3 }] }, new Map([[1, 2]]), new Set([1]), [1, 'a'], null, undefined, 42, 'str');
  console.warn('%s is %d', 'Ada', 36, { o: 1 });
  console.error(function named() {}, [undefined, , 3], { nested: { deep: { deeper: { deepest: 1 } } } });
}`;

describe('the console format a request asks for', () => {
  test("'inspect' writes what workerd's console writes", async () => {
    expect((await sandbox.execute({ code: CODE, consoleFormat: 'inspect' })).logs).toStrictEqual([
      {
        level: 'log',
        text: "x { a: 1, b: [ 1, 2, { c: 3 } ] } Map(1) { 1 => 2 } Set(1) { 1 } [ 1, 'a' ] null undefined 42 str",
      },
      { level: 'warn', text: 'Ada is 36 { o: 1 }' },
      {
        level: 'error',
        text: '[Function: named] [ undefined, <1 empty item>, 3 ] { nested: { deep: { deeper: [Object] } } }',
      },
    ]);
  });

  test("absent or 'string', the protocol's rule, as before", async () => {
    const expected = [
      { level: 'log', text: 'x [object Object] [object Map] [object Set] 1,a null undefined 42 str' },
      { level: 'warn', text: '%s is %d Ada 36 [object Object]' },
      { level: 'error', text: 'function named() {} ,,3 [object Object]' },
    ];
    expect((await sandbox.execute({ code: CODE })).logs).toStrictEqual(expected);
    expect((await sandbox.execute({ code: CODE, consoleFormat: 'string' })).logs).toStrictEqual(expected);
  });

  test("a module's top level logs in the format too: the switch comes before any code of the request", async () => {
    const envelope = await sandbox.execute({
      code: `import './side.js';\nasync () => 1`,
      modules: { './side.js': `console.log({ loaded: true })` },
      consoleFormat: 'inspect',
    });
    expect(envelope.logs).toStrictEqual([{ level: 'log', text: '{ loaded: true }' }]);
  });
});
