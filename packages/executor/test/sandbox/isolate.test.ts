/** assertNoNodeSnapshot, assertEngineServesSandbox and the probes, on the installed isolated-vm. */
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import {
  assertEngineServesSandbox,
  assertNoNodeSnapshot,
  createIsolate,
  ENGINE_PROBES,
} from '../../src/sandbox/isolate.ts';
import { BINDINGS_SOURCE } from '../../src/sandbox/runtime-bindings.ts';

describe('the engine check', () => {
  test('isolates run in this process', () => {
    expect(() => assertNoNodeSnapshot()).not.toThrow();
  });

  test('reports each behaviour, and on released isolated-vm selects every fallback instead of failing', async () => {
    const report = await assertEngineServesSandbox();
    expect(Object.keys(report.behaviours).sort()).toStrictEqual(Object.keys(ENGINE_PROBES).sort());
    // isolated-vm 6.2.0 has none of the three (adr/0002); a release that has one flips its row.
    expect(report.behaviours.dynamicImportCallback).toMatchObject({
      present: false,
      reason: expect.stringMatching(/never fired/),
    });
    expect(report.behaviours.unhandledRejectionCallback).toMatchObject({ present: false });
    expect(report.behaviours.settleAfterTopLevelAwait).toMatchObject({ present: false });
    expect(report.fallbacks).toStrictEqual(Object.values(ENGINE_PROBES).map((probe) => probe.fallback));
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
      },
    });
    expect(report.behaviours).toStrictEqual({
      dynamicImportCallback: { present: true },
      unhandledRejectionCallback: { present: false, reason: 'the probe did not answer within 200 ms' },
      settleAfterTopLevelAwait: { present: false, reason: 'the probe did not answer within 200 ms' },
    });
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
