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
    const started = performance.now();
    const hang = () => new Promise<void>(() => {});
    const report = await assertEngineServesSandbox({
      timeout: 200,
      probes: {
        dynamicImportCallback: hang,
        unhandledRejectionCallback: hang,
        settleAfterTopLevelAwait: async () => {},
      },
    });
    const elapsed = performance.now() - started;
    expect(report.behaviours.dynamicImportCallback).toStrictEqual({
      present: false,
      reason: 'the probe did not answer within 200 ms',
    });
    expect(report.behaviours.unhandledRejectionCallback.present).toBe(false);
    expect(report.behaviours.settleAfterTopLevelAwait).toStrictEqual({ present: true });
    // One deadline, not the sum of two: both hung probes ended at the same 200 ms mark.
    expect(elapsed).toBeLessThan(400);
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
