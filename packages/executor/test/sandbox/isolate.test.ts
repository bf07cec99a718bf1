/** assertNoNodeSnapshot, assertEngineServesSandbox and the probes, on the installed isolated-vm. */
import { createRequire } from 'node:module';
import type ivm from 'isolated-vm';
import { describe, expect, test } from 'vitest';
import {
  assertEngineServesSandbox,
  assertNoNodeSnapshot,
  assertReadsCodeCache,
  createIsolate,
  ENGINE_PROBES,
} from '../../src/sandbox/isolate.ts';
import type { CompiledCode } from '../../src/sandbox/modules/code-cache.ts';
import { BINDINGS_SOURCE } from '../../src/sandbox/setup/runtime-bindings.ts';

describe('the engine check', () => {
  test('isolates run in this process', () => {
    expect(() => assertNoNodeSnapshot()).not.toThrow();
  });

  test('reports each behaviour, and keeps the fallback of each one it lacks or does not adopt', async () => {
    const report = await assertEngineServesSandbox();
    expect(Object.keys(report.behaviours).sort()).toStrictEqual(Object.keys(ENGINE_PROBES).sort());
    // The workspace's isolated-vm is 7.0.2 on both lanes (Node 24 and 26; adr/0002). 7.0.1 had none
    // of the four; 7.0.2 added the import() callback, the unhandled-rejection callback and evaluate
    // settling after top-level await, so those three rows flipped to present. It still hands a
    // module's blob to V8 without asking it to consume one, so the code cache row stays missing.
    expect(report.behaviours.dynamicImportCallback).toStrictEqual({ present: true });
    expect(report.behaviours.unhandledRejectionCallback).toStrictEqual({ present: true });
    expect(report.behaviours.settleAfterTopLevelAwait).toStrictEqual({ present: true });
    expect(report.behaviours.moduleCodeCache).toMatchObject({
      present: false,
      reason: 'a zeroed code cache compiled without being refused, so the engine never read it',
    });
    // A behaviour present but not adopted keeps its fallback in force, so the report lists it: the
    // sandbox has no native path for any of the three 7.0.2 added.
    expect(report.fallbacks).toStrictEqual([
      ENGINE_PROBES.dynamicImportCallback.fallback,
      ENGINE_PROBES.unhandledRejectionCallback.fallback,
      ENGINE_PROBES.settleAfterTopLevelAwait.fallback,
      ENGINE_PROBES.moduleCodeCache.fallback,
    ]);
    expect(report.node).toBe(process.version);
    expect(report.isolatedVm).toBe(createRequire(import.meta.url)('isolated-vm/package.json').version);
    expect(report.isolatedVm).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('the probes run together under one deadline; a hanging probe counts as missing', async () => {
    const hang = () => new Promise<void>(() => {});
    let othersStarted = 0;
    let bothStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    const startHanging = () => {
      if (++othersStarted === 2) bothStarted();
      return hang();
    };
    const report = await assertEngineServesSandbox({
      timeout: 200,
      probes: {
        // Answers only once the two others have started: run one after another, it would hang too.
        dynamicImportCallback: () => started,
        unhandledRejectionCallback: startHanging,
        settleAfterTopLevelAwait: startHanging,
        moduleCodeCache: async () => {},
      },
    });
    expect(report.behaviours).toStrictEqual({
      dynamicImportCallback: { present: true },
      unhandledRejectionCallback: { present: false, reason: 'the probe did not answer within 200 ms' },
      settleAfterTopLevelAwait: { present: false, reason: 'the probe did not answer within 200 ms' },
      moduleCodeCache: { present: true },
    });
  });
});

describe("the code cache probe's check", () => {
  test("passes over a compile that reads its cache: isolated-vm's scripts", async () => {
    await assertReadsCodeCache(
      (isolate, source, options) =>
        isolate.compileScript(source, options) as Promise<ivm.Script & CompiledCode>,
    );
  });

  test("names what is wrong with one that ignores it: isolated-vm 6.2.0's modules", async () => {
    await expect(
      assertReadsCodeCache(
        (isolate, source, options) =>
          isolate.compileModule(source, options) as Promise<ivm.Module & CompiledCode>,
      ),
    ).rejects.toThrow('a zeroed code cache compiled without being refused, so the engine never read it');
  });

  test('refuses a compile that makes no cache, or refuses its own', async () => {
    await expect(assertReadsCodeCache(async () => ({}))).rejects.toThrow('the compile made no code cache');
    await expect(
      assertReadsCodeCache(async (isolate, source, options) => {
        const script = (await isolate.compileScript(source, options)) as ivm.Script & CompiledCode;
        return options.cachedData === undefined ? script : { cachedDataRejected: true };
      }),
    ).rejects.toThrow('the compile refused its own code cache');
  });
});

test('an isolate created without the runtime snapshot names the cause', () => {
  const handle = createIsolate({ memoryLimit: 16 });
  try {
    expect(() => handle.context.evalSync(`${BINDINGS_SOURCE}({})`)).toThrow(
      'The isolate was created without the runtime snapshot readRuntimeSnapshot answers.',
    );
  } finally {
    handle.isolate.dispose();
  }
});
