/**
 * A child the pool starts beyond its size for a nested execution (pool/nested-executions.ts) that fails to
 * start, through real children: another is started for it after the respawn delay, and the nested
 * execution still runs instead of waiting for ever behind its own ancestor.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { TOOLS_PROVIDER, usePool } from './helpers.ts';

test('a nested run whose extra child fails to start gets another, and runs', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'nested-start-'));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  // The marker exists while the pool's own child starts, so that one passes its engine check;
  // removed, it is claimed by the next child to start, the one for the nested run, which fails.
  const marker = join(folder, 'claimed');
  writeFileSync(marker, '');
  const { pool, log } = usePool({ size: 1, testHooks: { failFirstEngineCheck: marker } });
  await pool.engine();
  rmSync(marker);
  const envelope = await pool.execute(
    { code: 'async () => await tools.nest()', providers: TOOLS_PROVIDER },
    {
      dispatch: async () => {
        const inner = await pool.execute({ code: 'async () => 7' });
        return JSON.stringify({ result: inner.result });
      },
    },
  );
  expect(envelope).toStrictEqual({ result: 7, logs: [] });
  expect(log.events.filter((event) => event.type === 'unhealthy')).toHaveLength(1);
}, 60_000);
