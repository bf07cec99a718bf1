/**
 * The packages a sandbox holds ready in the isolate it prepares ahead (the executor's
 * sandbox/setup/warm-packages.ts): those recent runs imported, within a quarter of the memory
 * limit, never for a durable run, and never again for one whose code failed to load ahead. Whether
 * an isolate was warmed shows to a program as the registry being there before it imports anything.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DurableKeyRing } from '@supolka/codemode-executor';
import { Sandbox, WARM_WINDOW } from '@supolka/codemode-executor/sandbox';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bundlePackages } from '../src/index.ts';
import { manifest, useFolder, writeTree } from './fixtures.ts';

const here = join(import.meta.dirname, '..');
const folder = useFolder();
writeTree(folder, {
  'node_modules/shy/package.json': manifest({ name: 'shy', exports: './index.js', type: 'module' }),
  // Loads only once a program has said so: ahead of every program, it throws.
  'node_modules/shy/index.js':
    "if (globalThis.shyAllowed !== true) throw new Error('not ahead of a program'); export const shy = 'loaded';",
});

type Bundle = Awaited<ReturnType<typeof bundlePackages>>;
let bundle: Bundle;
beforeAll(async () => {
  const registry = await bundlePackages({ packages: ['zod', 'date-fns'], base: here });
  const local = await bundlePackages({ packages: ['shy'], base: folder });
  bundle = { packages: [...registry.packages, ...local.packages] };
});

const sandboxes: Sandbox[] = [];
afterAll(() => {
  for (const sandbox of sandboxes) sandbox.dispose();
});

/** A sandbox, and a wait for the isolate it prepares next. */
function make(options: ConstructorParameters<typeof Sandbox>[0] = {}) {
  let ready: () => void = () => {};
  const sandbox = new Sandbox({
    packages: bundle,
    durable: { keys: new DurableKeyRing({ keys: [{ id: 'k1', key: randomBytes(32) }] }) },
    ...options,
    onPrepared: () => ready(),
  });
  sandboxes.push(sandbox);
  const prepared = () =>
    new Promise<void>((resolve) => {
      ready = resolve;
    });
  return { sandbox, prepared };
}

const REGISTRY = `async () => typeof globalThis[Symbol.for('codemode.packages')]`;

test('after a run imports zod, the isolate prepared next holds it ready', async () => {
  const { sandbox, prepared } = make();
  let next = prepared();
  await next;
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'undefined', logs: [] });
  next = prepared();
  expect(
    await sandbox.execute({ code: `import { z } from 'zod'\nasync () => z.string().parse('x')` }),
  ).toStrictEqual({
    result: 'x',
    logs: [],
  });
  await next;
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'object', logs: [] });
  // And a program importing it meets the one copy the warm-up loaded.
  next = prepared();
  await next;
  expect(
    await sandbox.execute({
      code: `import { z } from 'zod'\nimport * as v4 from 'zod/v4'\nasync () => v4.z === z`,
    }),
  ).toStrictEqual({ result: true, logs: [] });
});

test('with warmPackages false, nothing is held ready', async () => {
  const { sandbox, prepared } = make({ warmPackages: false });
  const next = prepared();
  await sandbox.execute({ code: `import { z } from 'zod'\nasync () => typeof z` });
  await next;
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'undefined', logs: [] });
});

test("with warmPackages 1, only the latest run's imports are held ready", async () => {
  const { sandbox, prepared } = make({ warmPackages: 1 });
  let next = prepared();
  await sandbox.execute({ code: `import { z } from 'zod'\nasync () => typeof z` });
  await next;
  next = prepared();
  // The run before this one imported zod: it is there.
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'object', logs: [] });
  await next;
  // This one's run before imported nothing.
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'undefined', logs: [] });
});

test('a durable run never takes a warmed isolate: library code that ran ahead ran outside its journal', async () => {
  const { sandbox, prepared } = make();
  const next = prepared();
  await sandbox.execute({ code: `import { z } from 'zod'\nasync () => typeof z` });
  await next;
  const durable = await sandbox.execute({ code: REGISTRY, durable: true });
  expect(durable).toStrictEqual({ result: 'undefined', logs: [] });
});

test('a package that would take more than a quarter of the memory limit is not warmed', async () => {
  const { sandbox, prepared } = make();
  const next = prepared();
  // date-fns's 1.7 MB script is far more than a quarter of 8 MB once loaded.
  await sandbox.execute({
    code: `import addDays from 'date-fns/addDays'\nasync () => typeof addDays`,
    memoryLimit: 8,
  });
  await next;
  expect(await sandbox.execute({ code: REGISTRY, memoryLimit: 8 })).toStrictEqual({
    result: 'undefined',
    logs: [],
  });
});

test('a package whose code fails ahead of a program is loaded by the programs that import it, and never warmed again', async () => {
  const { sandbox, prepared } = make();
  const load = `async () => { globalThis.shyAllowed = true; const { shy } = await import('shy'); return shy }`;
  let next = prepared();
  expect(await sandbox.execute({ code: load })).toStrictEqual({ result: 'loaded', logs: [] });
  // The warm-up threw: that isolate was disposed, and a plain one prepared instead.
  await next;
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'undefined', logs: [] });
  next = prepared();
  expect(await sandbox.execute({ code: load })).toStrictEqual({ result: 'loaded', logs: [] });
  await next;
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'undefined', logs: [] });
});

test('a specifier every run imports stays warm past the window, and one no run imports cools down after it', async () => {
  const { sandbox, prepared } = make();
  const importing = `import { z } from 'zod'\nasync () => typeof z`;
  for (let run = 0; run < WARM_WINDOW + 2; run++) {
    const next = prepared();
    expect(await sandbox.execute({ code: importing })).toStrictEqual({ result: 'object', logs: [] });
    await next;
  }
  let next = prepared();
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'object', logs: [] });
  await next;
  for (let run = 0; run < WARM_WINDOW; run++) {
    next = prepared();
    await sandbox.execute({ code: 'async () => 1' });
    await next;
  }
  expect(await sandbox.execute({ code: REGISTRY })).toStrictEqual({ result: 'undefined', logs: [] });
});
