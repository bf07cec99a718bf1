/**
 * The unhandled-rejection fallback: on an engine that throws a rejection nobody handled out of the
 * next call into the isolate, such a rejection must never become the run's outcome, nor fail an
 * unrelated call, nor another run.
 */
import { expect, test } from 'vitest';
import { serve, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();
const tools = {
  providers: [{ name: 'tools' }],
  dispatch: serve({ tools: { echo: (value: unknown) => value } }),
};

test.each([
  [
    'before a tool call',
    `Promise.reject(new Error('orphan')); return await tools.echo('tool result');`,
    'tool result',
  ],
  [
    'before a timer',
    `Promise.reject(new Error('orphan')); return await new Promise((resolve) => setTimeout(() => resolve('timer result'), 5));`,
    'timer result',
  ],
  [
    'at the end of the run',
    `await tools.echo(1); Promise.reject(new Error('orphan')); return 'run result';`,
    'run result',
  ],
  [
    'many of them, around several waits',
    `for (let i = 0; i < 50; i++) Promise.reject(new Error('orphan ' + i));
     const a = await tools.echo('a');
     for (let i = 0; i < 50; i++) Promise.reject(new Error('orphan ' + i));
     await new Promise((resolve) => setTimeout(resolve, 2));
     return a + (await tools.echo('b'));`,
    'ab',
  ],
])('a rejection nobody handled, %s, leaves the outcome untouched', async (_, body, expected) => {
  const envelope = await sandbox.execute({ ...tools, code: `async () => { ${body} }` });
  expect(envelope).toStrictEqual({ result: expected, logs: [] });
});

test('a rejection made while a module loads does not fail the run or the next one', async () => {
  const first = await sandbox.execute({
    modules: { 'orphan.js': `Promise.reject(new Error('module orphan')); export default 'loaded'` },
    code: `import value from './orphan.js'
async () => value`,
  });
  expect(first).toStrictEqual({ result: 'loaded', logs: [] });
  expect(await sandbox.execute({ code: 'async () => "next run"' })).toStrictEqual({
    result: 'next run',
    logs: [],
  });
});

test('a rejection made while import() loads a module does not fail the import', async () => {
  const envelope = await sandbox.execute({
    modules: { 'lazy.js': `Promise.reject(new Error('lazy orphan')); export default 'lazy'` },
    code: `async () => { Promise.reject(new Error('caller orphan')); return (await import('./lazy.js')).default }`,
  });
  expect(envelope).toStrictEqual({ result: 'lazy', logs: [] });
});
