/**
 * A child's start from what an earlier child's start made, as the parent handed it on (`handOn`,
 * docs/pool.md, "Handing the start on") or as a child of an earlier process kept it on disk
 * (sandbox/setup/cached-start.ts, "The start cache on disk"): the engine report, taken when it names exactly the
 * behaviours this child would probe, and the runtime snapshot, adopted once its key and CRC-32 hold
 * (sandbox/setup/handed-snapshot.ts). Refused, the child starts as the first one did, probing and
 * making its own, and says why in its health report.
 */
import { assertNoNodeSnapshot, ENGINE_PROBES, type EngineReport } from '../../sandbox/isolate.ts';
import { adoptHandedSnapshot } from '../../sandbox/setup/handed-snapshot.ts';
import type { PoolMessageOf } from '../messages/table.ts';

export const HANDED_REPORT_MESSAGE = 'the engine report names other behaviours than this child probes';

/**
 * The engine report to serve by, the handed snapshot now this process's own; or why neither was
 * taken. `corrupt` (the corruptHandOn test hook) damages the snapshot's first bytes before the
 * checks, which V8, handed them, would end the process over.
 */
export function startFromHandOn(
  handed: Pick<PoolMessageOf<'handOn'>, 'key' | 'digest' | 'check' | 'snapshot' | 'engine'>,
  corrupt = false,
): { readonly engine: EngineReport } | { readonly refused: string } {
  // Whether isolates run in this process at all is this process's own to show, whatever it was handed.
  assertNoNodeSnapshot();
  const behaviours = Object.keys(handed.engine.behaviours);
  const probes = Object.keys(ENGINE_PROBES);
  if (behaviours.length !== probes.length || !probes.every((name) => behaviours.includes(name))) {
    return { refused: HANDED_REPORT_MESSAGE };
  }
  const bytes = corrupt ? damaged(handed.snapshot) : handed.snapshot;
  const refused = adoptHandedSnapshot({ key: handed.key, digest: handed.digest, check: handed.check, bytes });
  if (refused !== undefined) return { refused };
  // It names exactly this child's behaviours, checked above.
  return { engine: handed.engine as EngineReport };
}

/** A copy of `bytes` with its first 64 bytes inverted. */
function damaged(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice();
  for (let index = 0; index < Math.min(64, copy.length); index++)
    copy[index] = (copy[index] as number) ^ 0xff;
  return copy;
}

/**
 * Another key for the same start (the foreignHandOn test hook): as another build would name it,
 * and as long, so it is within START_KEY_LIMIT whenever the key is.
 */
export function foreignKey(key: string): string {
  return key.replace('runtime snapshot', 'foreign snapshot');
}
