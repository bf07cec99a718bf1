/**
 * What a pool child reports about itself when its heartbeat asks (the `health` message): the
 * engine it runs on (which behaviours the installed isolated-vm has, which fallbacks are in force)
 * and what it holds. Only the pool asks, so the shape is the pool's, not the protocol's.
 */
import { boundedRecord } from '@supolka/codemode-protocol';
import { z } from 'zod';
import { START_KEY_LIMIT } from '../../sandbox/setup/snapshot-limit.ts';
import { SHA256_HEX } from '../../sandbox/setup/start-check.ts';
import { REFUSAL_LIMIT } from './health-check.ts';

const text = z.string({ error: 'must be a string' });

const count = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be a whole number' })
  .min(0, { error: 'must not be negative' });

/** One engine behaviour the sandbox assumes: whether the engine has it, and why not when it does not. */
export const EngineBehaviourSchema = z.strictObject({
  present: z.boolean({ error: 'must be a boolean' }),
  reason: text.optional(),
});

/** The engine report of docs/sandbox.md: behaviours by name and the fallbacks in force, one sentence each. */
export const EngineReportSchema = z.strictObject({
  isolatedVm: text,
  node: text,
  behaviours: boundedRecord(
    EngineBehaviourSchema,
    64,
    'must be an object mapping behaviour names to { present, reason? }',
  ),
  fallbacks: z
    .array(text, { error: 'must be a list of sentences' })
    .max(64, { error: 'must hold at most 64 sentences' }),
});
export type EngineReportMessage = z.infer<typeof EngineReportSchema>;

/** A SHA-256 as a start's digest is written. */
export const Sha256Schema = z
  .string({ error: 'must be a string' })
  .regex(SHA256_HEX, { error: 'must be a SHA-256 in 64 lowercase hexadecimal digits' });

/** A start's key: what made its snapshot, word for word (runtimeSnapshotKey). */
export const StartKeySchema = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(START_KEY_LIMIT, { error: `must be at most ${START_KEY_LIMIT} characters` });

/**
 * How a child started: from the snapshot and engine report the parent handed on (`handedOn`), from
 * the ones an earlier process's child kept on disk (`cached`), or from its own (`built`), with why
 * it refused the ones it was handed when it was handed any, and why it refused the ones on disk
 * when there were any (`cacheRefused`: damaged, another build's, a file it must not trust). A
 * child that hands its own on commits to it here, in its first healthy answer, before any program
 * ran in it: the `key` of the build that made its snapshot and the `digest` of the snapshot's
 * bytes, which follow later in a `snapshot` message (docs/pool.md, "Handing the start on").
 */
export const StartSchema = z.strictObject({
  snapshot: z.enum(['handedOn', 'cached', 'built'], { error: 'must be handedOn, cached or built' }),
  refused: text.max(REFUSAL_LIMIT, { error: `must be at most ${REFUSAL_LIMIT} characters` }).optional(),
  cacheRefused: text.max(REFUSAL_LIMIT, { error: `must be at most ${REFUSAL_LIMIT} characters` }).optional(),
  key: StartKeySchema.optional(),
  digest: Sha256Schema.optional(),
});
export type StartReport = z.infer<typeof StartSchema>;

/** A worker's health: its engine report and the resources it holds now. */
export const HealthSchema = {
  engine: EngineReportSchema,
  /** Resident set size of the worker's process, in bytes. */
  rss: count,
  /** Executions the worker has served since it started. */
  executions: count,
  /** Retained executions it holds (their isolates stay alive). */
  retained: count,
  /**
   * Of those, the ones whose timers are executing work now, between invocations: a worker with
   * any is busy for scheduling, whatever else it runs. Absent from a worker that does not say.
   */
  working: count.optional(),
  /** How it started (StartSchema). Absent from a worker that does not say. */
  start: StartSchema.optional(),
};
