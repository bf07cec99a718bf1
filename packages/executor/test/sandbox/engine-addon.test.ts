/**
 * The range the addon check holds a release to is the package's peer range, read the way the
 * check reads it; the sentences for a release that cannot load are tested against real releases
 * in test/pool/addon-failure.test.ts.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import {
  installedIsolatedVm,
  isolatedVmProblem,
  SUPPORTED_ISOLATED_VM,
  satisfiesCaretRange,
} from '../../src/sandbox/setup/engine-addon.ts';

test('the supported range is the peer range package.json declares', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  expect(manifest.peerDependencies['isolated-vm']).toBe(SUPPORTED_ISOLATED_VM);
});

test.each([
  ['7.0.1', true],
  ['7.0.0', false],
  ['7.3.0', true],
  ['8.0.0', false],
  ['6.2.0', false],
  ['5.0.4', false],
  ['7.0.1-rc.1', false],
  ['not a version', false],
])('%s is in the supported range: %s', (version, inRange) => {
  expect(satisfiesCaretRange(version, SUPPORTED_ISOLATED_VM)).toBe(inRange);
});

test('caret terms joined by || each admit their own major', () => {
  expect(satisfiesCaretRange('6.2.3', '^6.2.0 || ^7.0.1')).toBe(true);
  expect(satisfiesCaretRange('6.1.9', '^6.2.0 || ^7.0.1')).toBe(false);
});

test("the workspace's own isolated-vm is in range and loads, so nothing stands in the way", async () => {
  expect(satisfiesCaretRange(installedIsolatedVm() as string, SUPPORTED_ISOLATED_VM)).toBe(true);
  expect(await isolatedVmProblem()).toBeUndefined();
});
