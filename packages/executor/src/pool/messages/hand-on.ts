/**
 * The two messages that hand a pool child's start on to later children (docs/pool.md, "Handing the
 * start on"). `snapshot`: the bytes of the runtime snapshot a child made, which it committed to in
 * its first healthy answer (its `start`'s key and digest) and sends behind a later heartbeat
 * answer; the parent keeps them only when they hash to that digest. `handOn`: the start the parent
 * keeps (the key, the digest, the bytes' CRC-32, the bytes and the engine report of that first answer), sent to each
 * child it spawns after as its first message, which checks it (sandbox/setup/handed-snapshot.ts)
 * before V8 sees a byte.
 */
import { z } from 'zod';
import { SNAPSHOT_BYTES_LIMIT } from '../../sandbox/setup/snapshot-limit.ts';
import { EngineReportSchema, Sha256Schema, StartKeySchema } from './health.ts';

const snapshotBytes = z.custom<Uint8Array>(
  (value) => value instanceof Uint8Array && value.byteLength <= SNAPSHOT_BYTES_LIMIT,
  { error: `must be bytes (a Uint8Array) of at most ${SNAPSHOT_BYTES_LIMIT}` },
);

/** A child's snapshot, as it committed to it. */
export const SnapshotSchema = {
  bytes: snapshotBytes,
};

export const HandOnSchema = {
  /** What made the snapshot and the report: a child whose own key differs refuses both. */
  key: StartKeySchema,
  /** The SHA-256 of the snapshot's bytes, which its maker committed to. */
  digest: Sha256Schema,
  /** The CRC-32 of the bytes, as the parent found them: what the child checks before V8 sees them. */
  check: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must not be negative' })
    .max(0xffffffff, { error: 'must be at most 4294967295 (a CRC-32)' }),
  /** The runtime snapshot's bytes. */
  snapshot: snapshotBytes,
  /** The engine report the snapshot's maker probed. */
  engine: EngineReportSchema,
};
