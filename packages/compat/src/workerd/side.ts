/**
 * Runs a case in workerd: one POST to the host Worker, which loads the case Worker and calls its
 * harness. Answers the run record, or throws HarnessError when the suite (not the program) failed.
 */
import { randomUUID } from 'node:crypto';
import { type LogLine, parseForDispatch } from '@supolka/codemode-protocol';
import type { Case } from '../case.ts';
import { prepareCase } from '../prepare.ts';
import { HarnessError, type RunRecord } from '../record.ts';
import { COMPATIBILITY_DATE } from './config.ts';
import { consoleMark } from './console-transcript.ts';
import { caseWorkerModules, HARNESS_MODULE } from './entry.ts';

export interface WorkerdSide {
  /** The host Worker's origin. */
  readonly url: string;
  readonly loopbackOrigin: string;
}

/** Headroom past the case's own bound before the suite gives up on workerd's answer. */
const ANSWER_GRACE = 10_000;

export async function runOnWorkerd(item: Case, side: WorkerdSide): Promise<RunRecord> {
  const prepared = prepareCase(item, side.loopbackOrigin);
  const run = `case-${randomUUID()}`;
  const spec = {
    run,
    compatibilityDate: COMPATIBILITY_DATE,
    harness: HARNESS_MODULE,
    modules: caseWorkerModules(prepared.code, prepared.providers, prepared.modules),
    options: {
      timeout: prepared.timeout,
      timeoutMessage: prepared.timeoutMessage,
      ...(item.invoke !== undefined ? { invoke: item.invoke } : {}),
      ...(item.consoleFormat === 'inspect' ? { consoleMark: consoleMark(run) } : {}),
    },
  };
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${side.url}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(spec),
      signal: AbortSignal.timeout(prepared.timeout + ANSWER_GRACE),
    });
    text = await response.text();
  } catch (error) {
    throw new HarnessError(`workerd did not answer the case: ${String(error)}`);
  }
  if (!response.ok) {
    let detail = text;
    try {
      detail = (JSON.parse(text) as { harnessError: string }).harnessError;
    } catch {}
    throw new HarnessError(`workerd's host failed to run the case (${response.status}): ${detail}`);
  }
  const answer = JSON.parse(text) as { outcome: string; logs: LogLine[] };
  const outcome = parseForDispatch(answer.outcome) as Omit<RunRecord, 'logs'>;
  const logs =
    item.consoleFormat === 'inspect' ? await workerdsOwnLines(run, answer.logs, side) : answer.logs;
  return { ...outcome, logs };
}

/**
 * The lines as workerd's console wrote them: the harness captured their levels, and wrote their
 * texts to workerd's stdout and stderr, which the loopback server reads (console-transcript.ts).
 */
async function workerdsOwnLines(run: string, lines: LogLine[], side: WorkerdSide): Promise<LogLine[]> {
  if (lines.length === 0) return lines;
  const response = await fetch(
    `${side.loopbackOrigin}/__console/${encodeURIComponent(run)}?lines=${lines.length}`,
  );
  const texts = (await response.json()) as (string | null)[];
  const missing = texts.filter((text) => text === null).length;
  if (missing > 0) {
    throw new HarnessError(
      `workerd's output held ${lines.length - missing} of the run's ${lines.length} console lines`,
    );
  }
  return lines.map(({ level }, index) => ({ level, text: texts[index] as string }));
}
