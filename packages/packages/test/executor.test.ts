/**
 * The packages option of IsolateExecutor, through its pool: the bundle made when the executor is
 * constructed reaches every child, those spawned later too, and a configuration that cannot be
 * served answers every execution with the reason.
 */
import { join } from 'node:path';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { afterAll, expect, test } from 'vitest';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const here = join(import.meta.dirname, '..');
const folder = useFolder();
const executors: IsolateExecutor[] = [];
afterAll(() => Promise.all(executors.map((executor) => executor.dispose())));
const make = (options: ConstructorParameters<typeof IsolateExecutor>[0]) => {
  const executor = new IsolateExecutor({ poolSize: 1, ...options });
  executors.push(executor);
  return executor;
};

test('the allowed packages reach every child, one spawned after the first retired included', async () => {
  const executor = make({ packages: ['zod', 'lodash'], packagesBase: here, maxExecutionsPerChild: 1 });
  expect(await executor.packages()).toStrictEqual([
    { name: 'zod', version: '4.6.7' },
    { name: 'lodash', version: '4.18.1' },
  ]);
  const code = `import { z } from 'zod'\nimport { sum } from 'lodash'\nasync () => z.number().parse(sum([1, 2, 3]))`;
  const pids = new Set<number | undefined>();
  for (let run = 0; run < 3; run++) {
    expect(await executor.execute({ code })).toStrictEqual({ result: 6, logs: [] });
    pids.add(executor.stats().children[0]?.pid);
  }
  // Each run was a child's last: the packages reached children that did not exist when they were bundled.
  expect(pids.size).toBeGreaterThan(1);
});

test('an execution sent before bundling finished waits for it, and finds the packages', async () => {
  const executor = make({ packages: ['yaml'], packagesBase: here });
  expect(
    await executor.execute({ code: `import { parse } from 'yaml'\nasync () => parse('a: [1]')` }),
  ).toStrictEqual({
    result: { a: [1] },
    logs: [],
  });
});

test('a package given by directory, relative to the base', async () => {
  writeTree(folder, {
    'vendor/greeter/package.json': manifest({
      name: 'greeter',
      version: '0.2.0',
      exports: './index.js',
      type: 'module',
    }),
    'vendor/greeter/index.js': "export const greet = (name) => 'hello, ' + name;",
  });
  const executor = make({ packages: { greeter: './vendor/greeter' }, packagesBase: folder });
  expect(await executor.packages()).toStrictEqual([{ name: 'greeter', version: '0.2.0' }]);
  expect(
    await executor.execute({ code: `import { greet } from 'greeter'\nasync () => greet('pool')` }),
  ).toStrictEqual({
    result: 'hello, pool',
    logs: [],
  });
});

test('a configuration that cannot be served answers every execution with why, and packages() rejects', async () => {
  const executor = make({ packages: ['graceful-fs'], packagesBase: here });
  const envelope = await executor.execute({ code: 'async () => 1' });
  expect(envelope).toMatchObject({ result: undefined, code: 'BAD_REQUEST', logs: [] });
  expect(envelope.error).toMatch(
    /^IsolateExecutor option packages cannot be served: The package graceful-fs cannot be bundled: The package graceful-fs needs the Node built-in 'fs'/,
  );
  await expect(executor.packages()).rejects.toThrow(envelope.error as string);
});

test('without the option, no package is allowed and the not-found sentence is unchanged', async () => {
  const executor = make({});
  expect(await executor.packages()).toStrictEqual([]);
  expect((await executor.execute({ code: `import { z } from 'zod'\nasync () => z` })).error).toBe(
    "Cannot find module 'zod' imported from executor.js: the module map has no such key.",
  );
});

test("the Code Mode form's statements import allowed packages too", async () => {
  const executor = make({ packages: ['zod'], packagesBase: here });
  const result = await executor.execute("import { z } from 'zod'\nreturn z.string().parse('code mode')", {});
  expect(result).toMatchObject({ result: 'code mode' });
});
