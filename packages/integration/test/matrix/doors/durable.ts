/**
 * What the doors that offer durability share (durable-rows.ts): the key every door's executor,
 * server or command seals with, and the row's two steps: the durable run, which must pause, then
 * the resume with the row's answers (its token tampered with first when the row says so), read
 * back into one outcome: the resume's, after the paused run's logs, with the pause said in one line.
 */
import { randomBytes } from 'node:crypto';
import { DurableKeyRing } from '@supolka/codemode-executor';
import type { PausedRun } from '@supolka/codemode-protocol';
import type { Behaviour, DurableRow } from '../door.ts';
import { type Outcome, pausedSummary } from '../outcome.ts';

/** The one key, as the ring's options list it. */
export const DURABLE_KEY = { id: 'matrix', key: randomBytes(32) };

/** The ring as the executor and the server take it (the built package's class). */
export function durableKeys(): DurableKeyRing {
  return new DurableKeyRing({ keys: [DURABLE_KEY] });
}

/** The ring as the command reads it (CODEMODE_DURABLE_KEYS). */
export const DURABLE_KEYS_TEXT = `${DURABLE_KEY.id}=${Buffer.from(DURABLE_KEY.key).toString('base64')}`;

/** A character of the ciphertext changed, well before the tag: the tag no longer verifies. */
export function tampered(token: string): string {
  const at = token.length - 40;
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}

/** What a door's execute and resume answer, as far as the row's two steps read it: the pause, if any. */
interface MayPause {
  readonly paused?: PausedRun | undefined;
}

/**
 * Runs a durable row: `execute` the run, which must pause (an answer that did not is the row's
 * outcome as it is, and fails the row), then `resume` it from its token with the answers. `read`
 * maps the door's answer into an outcome: the envelope's for the object forms, the Code Mode
 * result's for that form.
 */
export async function pausedThenResumed<Answer extends MayPause>(
  behaviour: Behaviour,
  execute: () => Promise<Answer>,
  resume: (token: string, answers: DurableRow['answers']) => Promise<Answer>,
  read: (answer: Answer) => Outcome,
): Promise<Outcome> {
  const row = behaviour.durable as DurableRow;
  const first = await execute();
  if (first.paused === undefined) return read(first);
  const token = row.tamper === true ? tampered(first.paused.token) : first.paused.token;
  const resumed = read(await resume(token, row.answers));
  return { ...resumed, logs: [...read(first).logs, ...resumed.logs], paused: pausedSummary(first.paused) };
}
