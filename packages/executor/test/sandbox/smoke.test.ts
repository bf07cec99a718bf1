import { afterAll, expect, test } from 'vitest';
import { Sandbox } from '../../src/sandbox/sandbox.ts';

const sandbox = new Sandbox();
afterAll(() => sandbox.dispose());

test('a trivial program', async () => {
  expect(await sandbox.execute({ code: 'async () => 1 + 1' })).toStrictEqual({ result: 2, logs: [] });
});

test('a tool call', async () => {
  const result = await sandbox.execute({
    code: `async () => { console.log('hi', 1); return await files.read('a.txt') }`,
    providers: [{ name: 'files' }],
    dispatch: async (provider, tool, args) => JSON.stringify({ result: `${provider}.${tool}(${args})` }),
  });
  expect(result).toStrictEqual({ result: 'files.read(["a.txt"])', logs: [{ level: 'log', text: 'hi 1' }] });
});
