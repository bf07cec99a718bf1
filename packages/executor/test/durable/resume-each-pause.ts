/**
 * A durable run taken to its end the way a person approving every call would: each pause answered
 * by performing its pending calls, the step it paused at taken out of `closed` so the program goes
 * on past it. The fidelity tests (through every door) and the pool's durable tests drive their runs
 * with it; each says how its door resumes.
 */
import type { DurableExecuteResult } from '../../src/durable/durability.ts';

export type PerformAll = Map<number, { perform: true }>;

export async function resumeEachPause(
  first: DurableExecuteResult,
  closed: Set<number>,
  resume: (token: string, answers: PerformAll) => Promise<DurableExecuteResult>,
): Promise<{ envelope: DurableExecuteResult; logs: DurableExecuteResult['logs']; pausedAt: unknown[] }> {
  let envelope = first;
  const logs = [...envelope.logs];
  const pausedAt: unknown[] = [];
  while (envelope.paused) {
    pausedAt.push(envelope.paused.data);
    closed.delete((envelope.paused.data as { step: number }).step);
    const answers: PerformAll = new Map(
      envelope.paused.pending.map((call) => [call.sequence, { perform: true as const }]),
    );
    envelope = await resume(envelope.paused.token, answers);
    logs.push(...envelope.logs);
  }
  return { envelope, logs, pausedAt };
}
