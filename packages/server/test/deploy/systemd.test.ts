/**
 * The systemd unit of deploy/systemd, checked by systemd's own parser (`systemd-analyze verify`,
 * offline: no systemd needs to run) as the instance an operator would enable, and read for the
 * settings the drain depends on.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DEFAULT_DRAIN_TIMEOUT } from '../../src/options.ts';

const UNIT = new URL('../../../../deploy/systemd/codemode-executor@.service', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'codemode-systemd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What `systemd-analyze verify` says of `text` as the unit codemode-executor@executor-a. */
function verify(text: string): string {
  const template = join(dir, 'codemode-executor@.service');
  writeFileSync(template, text);
  const instance = join(dir, 'codemode-executor@executor-a.service');
  rmSync(instance, { force: true });
  symlinkSync(template, instance);
  const result = spawnSync('systemd-analyze', ['verify', '--man=no', instance], { encoding: 'utf8' });
  if (result.error) {
    throw new Error(`This test needs systemd-analyze (the Debian package systemd): ${result.error.message}`);
  }
  return `${result.stdout}${result.stderr}`.trim();
}

describe('the systemd unit', () => {
  test("passes systemd's own check, which names a setting it cannot parse", () => {
    const unit = readFileSync(UNIT, 'utf8');
    expect(verify(unit)).toBe('');
    expect(verify(unit.replace('KillMode=mixed', 'KillMode=mixd'))).toContain(
      'Failed to parse kill mode specification, ignoring: mixd',
    );
  });

  test('signals the server alone on stop, and waits out its drain', () => {
    const unit = readFileSync(UNIT, 'utf8');
    const setting = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1];
    expect(setting('KillMode')).toBe('mixed');
    expect(setting('KillSignal')).toBe('SIGTERM');
    expect(Number(setting('TimeoutStopSec'))).toBeGreaterThan(DEFAULT_DRAIN_TIMEOUT / 1000);
    expect(unit).toContain('serve --instance %i');
  });
});
