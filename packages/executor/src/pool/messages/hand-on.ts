/**
 * The `handOn` message: what a pool child's start made that a later child may start from instead of
 * making it again, the runtime snapshot and the engine report (docs/pool.md, "Handing the start
 * on"). A child sends it once, before it reports healthy; the parent keeps it and sends it to each
 * child it spawns after, which checks it (sandbox/setup/handed-snapshot.ts) before V8 sees a byte.
 */
import { z } from 'zod';
import { SNAPSHOT_BYTES_LIMIT } from '../../sandbox/setup/snapshot-limit.ts';
import { SHA256_HEX } from './hand-on-check.ts';
import { EngineReportSchema } from './health.ts';

const sha256 = z
  .string({ error: 'must be a string' })
  .regex(SHA256_HEX, { error: 'must be a SHA-256 in 64 lowercase hexadecimal digits' });

export const HandOnSchema = {
  /** What made the snapshot and the report: a child whose own key differs refuses both. */
  key: sha256,
  /** The SHA-256 of the snapshot's bytes. */
  digest: sha256,
  /** The runtime snapshot's bytes. */
  snapshot: z.custom<Uint8Array>(
    (value) => value instanceof Uint8Array && value.byteLength <= SNAPSHOT_BYTES_LIMIT,
    { error: `must be bytes (a Uint8Array) of at most ${SNAPSHOT_BYTES_LIMIT}` },
  ),
  /** The engine report the snapshot's maker probed. */
  engine: EngineReportSchema,
};
