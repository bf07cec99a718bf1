/** The console inside the isolate and ConsoleCapture behind it. */
import { CONSOLE_CAPTURE_LIMIT, LINE_COST } from '@supolka/codemode-protocol';
import ivm from 'isolated-vm';
import { describe, expect, test } from 'vitest';
import { CONSOLE_CAPTURE_MESSAGE, CONSOLE_SOURCE, ConsoleCapture } from '../../src/sandbox/console.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

describe('formatting', () => {
  test('log, warn and error map String over their arguments and join with single spaces', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  console.log('text', 42, null, undefined, true, [1, [2, 3]], { a: 1 }, Symbol('s'), 10n, () => 1);
  console.warn(new Error('boom'));
  console.error();
}`,
    });
    expect(envelope.logs).toStrictEqual([
      { level: 'log', text: 'text 42 null undefined true 1,2,3 [object Object] Symbol(s) 10 () => 1' },
      { level: 'warn', text: 'Error: boom' },
      { level: 'error', text: '' },
    ]);
  });

  test('an argument String cannot convert throws into the program, as workerd does, and writes nothing', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const out = [];
  for (const value of [{ toString() { throw new Error('unprintable') } }, Object.create(null)]) {
    try { console.log('before', value) } catch (e) { out.push(e.name + ': ' + e.message) }
  }
  return out;
}`,
    });
    expect(envelope).toStrictEqual({
      result: ['Error: unprintable', 'TypeError: Cannot convert object to primitive value'],
      logs: [],
    });
  });

  test("workerd's shape: key order, a prototype of its own, methods named '' that read as native code", async () => {
    const envelope = await sandbox.execute({
      code: `async () => [Object.keys(console), Object.getPrototypeOf(console) === Object.prototype, console.log.name,
  String(console.info), String(console.context), console.context.length, Object.keys(console.context('x')).length]`,
    });
    expect(envelope.result).toStrictEqual([
      [
        'debug',
        'error',
        'info',
        'log',
        'warn',
        'dir',
        'dirxml',
        'table',
        'trace',
        'group',
        'groupCollapsed',
        'groupEnd',
        'clear',
        'count',
        'countReset',
        'assert',
        'profile',
        'profileEnd',
        'time',
        'timeLog',
        'timeEnd',
        'timeStamp',
        'context',
      ],
      false,
      '',
      'function () { [native code] }',
      'function context() { [native code] }',
      1,
      22,
    ]);
  });

  test('the other methods of the Console Standard, and profile, profileEnd, timeStamp, exist and write nothing', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  const names = ['debug', 'info', 'dir', 'dirxml', 'table', 'trace', 'group', 'groupCollapsed', 'groupEnd', 'clear', 'count',
    'countReset', 'assert', 'profile', 'profileEnd', 'time', 'timeLog', 'timeEnd', 'timeStamp'];
  for (const name of names) console[name]('x');
  return [names.every((name) => typeof console[name] === 'function'), typeof console.context, typeof console.createTask, String(console)];
}`,
    });
    expect(envelope).toStrictEqual({
      result: [true, 'function', 'undefined', '[object console]'],
      logs: [],
    });
  });
});

describe('ConsoleCapture', () => {
  test('charges each line LINE_COST plus its escaped length', () => {
    const capture = new ConsoleCapture();
    const perLine = LINE_COST + JSON.stringify('').length;
    const lines = Math.floor(CONSOLE_CAPTURE_LIMIT / perLine);
    for (let index = 0; index < lines; index++) expect(capture.push('log', '')).toBe(true);
    expect(capture.push('log', '')).toBe(false);
    expect(capture.lines.at(-1)).toStrictEqual({ level: 'warn', text: CONSOLE_CAPTURE_MESSAGE });
    expect(capture.lines).toHaveLength(lines + 1);
  });

  test('control characters cost their escaping: six code units each', () => {
    const capture = new ConsoleCapture();
    const text = '\u0001'.repeat(1000);
    let accepted = 0;
    while (capture.push('log', text)) accepted++;
    expect(accepted).toBe(Math.floor(CONSOLE_CAPTURE_LIMIT / (LINE_COST + 6 * 1000 + 2)));
  });

  test('stop ends capture without a final line', () => {
    const capture = new ConsoleCapture();
    capture.push('log', 'a');
    capture.stop();
    expect(capture.push('log', 'b')).toBe(false);
    expect(capture.lines).toStrictEqual([{ level: 'log', text: 'a' }]);
  });

  test('a run writing nothing but empty lines still reaches the bound', async () => {
    const envelope = await sandbox.execute({
      code: 'async () => { for (let i = 0; i < 100000; i++) console.log() }',
    });
    expect(envelope.logs.at(-1)).toStrictEqual({ level: 'warn', text: CONSOLE_CAPTURE_MESSAGE });
    expect(envelope.logs.length).toBeLessThan(100000);
  });

  test('the crossings stop as soon as the sink returned false once', () => {
    const isolate = new ivm.Isolate({ memoryLimit: 32 });
    try {
      const context = isolate.createContextSync();
      context.global.setSync('globalThis', context.global.derefInto());
      const capture = new ConsoleCapture();
      let crossings = 0;
      context.global.setSync(
        '__consoleSink',
        new ivm.Reference((level: 'log', text: string) => {
          crossings++;
          return capture.push(level, text);
        }),
      );
      context.evalSync(`${CONSOLE_SOURCE}(() => {})(__consoleSink)`);
      context.evalSync(`const line = 'x'.repeat(100000); for (let i = 0; i < 1000; i++) console.log(line)`);
      const fitting = Math.floor(CONSOLE_CAPTURE_LIMIT / (LINE_COST + 100002));
      expect(crossings).toBe(fitting + 1);
      expect(capture.lines).toHaveLength(fitting + 1);
    } finally {
      isolate.dispose();
    }
  });
});

test('a run the engine kills still comes back with the lines it wrote', async () => {
  const envelope = await sandbox.execute({
    timeout: 100,
    grace: 50,
    code: `async () => { console.log('one'); console.error('two'); for (;;) {} }`,
  });
  expect(envelope).toMatchObject({
    code: 'TIMEOUT',
    logs: [
      { level: 'log', text: 'one' },
      { level: 'error', text: 'two' },
    ],
  });
});

// The console is built once, in the snapshot, and each isolate connects its own sink: what one
// program does to it, and the lines a retained execution writes later, stay with that execution.
test("each isolate's console writes to its own run: a retained execution's later lines and a program's changes to the console reach no other run", async () => {
  const retained = await sandbox.execute({
    retainHandles: true,
    code: `async () => {
  console.log('retained body');
  Object.getPrototypeOf(console).log = () => {};
  console.warn = () => {};
  Object.defineProperty(Object.prototype, 'applySync', { value: () => false, configurable: true });
  return () => { console.log('retained invoked'); return new Response('ok') };
}`,
  });
  const executionId = retained.executionId as string;
  const invoked: number[] = [];
  const next = await sandbox.execute({
    providers: [{ name: 'other' }],
    // The retained execution writes a line while this run waits on its tool call.
    dispatch: async () => {
      const response = await sandbox.invoke(executionId, {
        method: 'GET',
        url: 'https://handler.example/',
        headers: [],
        body: null,
      });
      invoked.push(response.status);
      return JSON.stringify({ result: null });
    },
    code: `async () => {
  console.log('next before');
  await other.invokeRetained();
  console.warn('next after');
  return [typeof Object.prototype.applySync, Object.getOwnPropertyNames(Object.getPrototypeOf(console)), typeof Object.getOwnPropertyDescriptor(console, 'warn').value];
}`,
  });
  sandbox.closeHandles(executionId);
  expect([retained.logs, invoked, next]).toStrictEqual([
    [{ level: 'log', text: 'retained body' }],
    [200],
    {
      result: ['undefined', [], 'function'],
      logs: [
        { level: 'log', text: 'next before' },
        { level: 'warn', text: 'next after' },
      ],
    },
  ]);
});
