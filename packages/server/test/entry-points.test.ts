/**
 * The server runs isolates only in the children its pool forks: serving an execution loads no
 * isolated-vm into the server's own process (docs/sandbox.md, "Entry points"), as the executor's
 * main entry does not (packages/executor/test/executor/entry-points.test.ts, whose recorder this
 * uses). A fresh Node on the built package, imported by its name.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const recorder = new URL('../../executor/test/executor/fixtures/record-addons.mjs', import.meta.url).pathname;
const driver = new URL('./fixtures/drive-server.mjs', import.meta.url).pathname;
const reports = mkdtempSync(join(tmpdir(), 'server-entry-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

test('an execution through the server entry loads no isolated-vm into the server process', () => {
  const file = join(reports, 'server.json');
  const run = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', '--import', recorder, driver],
    {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ADDON_REPORT: file },
    },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toStrictEqual({ result: 42, logs: [] });
  const report = JSON.parse(readFileSync(file, 'utf8')) as { resolved: string[]; sharedObjects: string[] };
  // The probe saw the server package itself: the run went through its built entry.
  expect(report.resolved.some((url) => url.endsWith('/packages/server/dist/index.js'))).toBe(true);
  expect(report.resolved.filter((url) => url.includes('/isolated-vm/'))).toStrictEqual([]);
  expect(report.sharedObjects.filter((path) => /isolated[-_]vm.*\.node$/.test(path))).toStrictEqual([]);
});
