/**
 * One `execute` call: the program run through IsolateExecutor's Code Mode form with one provider
 * per upstream, each tool a function that counts the call, asks the approval policy (and, for
 * `ask`, the user through the client: live, or, in an approval round, by pausing the durable run
 * and answering with the pause; approval-rounds.ts), calls the upstream and maps its result. The
 * run clock pauses over each of those calls, as over any tool call. The envelope becomes the tool
 * result: its text (and structuredContent for an object), beside an error which call failed and
 * where, the notes on values serialization changed, the console lines, each block cut past
 * maxResultLength with a marker. A durable round's pause is handed back as it is, for
 * approval-rounds.ts to answer with.
 */

import type { CallToolResult } from '@modelcontextprotocol/server';
import type {
  CodeModeProvider,
  CodeModeResult,
  IsolateExecutor,
  PausedRun,
  ResumeAnswers,
} from '@supolka/codemode-executor';
import { durableCall, pause, pauseWallClock, sanitizeToolName } from '@supolka/codemode-executor';
import { DURABLE_TOKEN_CODES, stringifyForDispatch } from '@supolka/codemode-protocol';
import { QUESTION_LIMIT, questionFor } from './approval-question.ts';
import type { ApprovalPolicy } from './approvals.ts';
import type { Catalog } from './catalog.ts';
import { ExecutionCalls } from './execution-calls.ts';
import { toProgramValue } from './results.ts';
import {
  approvalNotResumedMessage,
  callsInFlightMessage,
  declinedMessage,
  deniedMessage,
  FAILED_CALL_LINE,
  NOTES_BLOCK,
  noElicitationMessage,
  questionTooLongMessage,
  THROWN_LINE,
  tooManyCallsMessage,
  truncatedMarker,
  unansweredMessage,
} from './texts.ts';

export interface ExecutionLimits {
  readonly maxUpstreamCalls: number;
  readonly maxResultLength: number;
}

/** The user's answer to an approval question, or undefined when the client cannot be asked. */
export type AskUser =
  | ((question: string, ended: AbortSignal) => Promise<'accept' | 'decline' | 'cancel'>)
  | undefined;

export interface Execution {
  readonly code: string;
  readonly catalog: Catalog;
  readonly policy: ApprovalPolicy;
  readonly limits: ExecutionLimits;
  readonly executor: IsolateExecutor;
  readonly ask: AskUser;
  /** The client's cancellation of the execute request: aborting ends the run with CANCELLED. */
  readonly signal?: AbortSignal;
  /** The session it runs for: sessions share the executor by turns (docs/pool.md, "Fair queues"). */
  readonly callerId?: string;
  /** Says what the run is waiting on, for progress notifications. */
  readonly waiting?: (what: string | undefined) => void;
  /** An approval round of a client on the current revision: the run is durable, and `ask` pauses it. */
  readonly round?: ApprovalRound;
}

/** What the user answered to one question of a paused run, or `missing` when the retry held no answer. */
export type RoundDecision = 'accept' | 'decline' | 'cancel' | 'missing';

/** One round of a durable execute (approval-rounds.ts): its first run, or the resume of a retry. */
export interface ApprovalRound {
  /** Whom the run is for: the client's identity and the call's arguments, which the token binds. */
  readonly principal: string;
  /** The retry's answers, by the sequence of the call asked about; empty on the first round. */
  readonly decisions: ReadonlyMap<number, RoundDecision>;
  /** The paused run a retry resumes: its token and the answer to each pending call. */
  readonly resume?: { readonly token: string; readonly answers: ResumeAnswers };
  /** Filled as calls ask: each question by its call's sequence, for the answer a pause becomes. */
  readonly questions: Map<number, string>;
}

/** A round whose run paused for approvals: the pause, for approval-rounds.ts to answer with. */
export interface PausedExecution {
  readonly paused: PausedRun;
}

/** Whether a round's outcome is its pause rather than the tool result (which always has content). */
export function isPaused(outcome: CallToolResult | PausedExecution): outcome is PausedExecution {
  return !('content' in outcome) && 'paused' in outcome;
}

export function runExecution(
  execution: Execution & { round: ApprovalRound },
): Promise<CallToolResult | PausedExecution>;
export function runExecution(execution: Execution): Promise<CallToolResult>;
export async function runExecution(execution: Execution): Promise<CallToolResult | PausedExecution> {
  const { signal, callerId, round } = execution;
  const calls = new ExecutionCalls();
  let envelope: CodeModeResult;
  let pending: string[];
  try {
    const providers = providersFor(execution, calls);
    const options = {
      ...(signal ? { signal } : {}),
      ...(callerId !== undefined ? { callerId } : {}),
      ...(round !== undefined ? { durable: true, principal: round.principal } : {}),
    };
    const { executor, code } = execution;
    envelope =
      round?.resume === undefined
        ? await executor.execute(code, providers, options)
        : await executor.resume(round.resume.token, round.resume.answers, code, providers, options);
  } finally {
    pending = calls.end();
  }
  if (envelope.paused !== undefined) return { paused: envelope.paused };
  // A resume the executor refused ran nothing: the sentence says which refusal and what to do.
  if (round?.resume !== undefined && isTokenCode(envelope.code)) {
    return {
      isError: true,
      content: [{ type: 'text', text: approvalNotResumedMessage(envelope.code, envelope.error ?? '') }],
    };
  }
  const { maxResultLength } = execution.limits;
  const logs = envelope.logs.join('\n');
  const logBlock =
    logs === '' ? [] : [{ type: 'text' as const, text: cut(`console:\n${logs}`, maxResultLength) }];
  const inFlightBlock =
    pending.length === 0 ? [] : [{ type: 'text' as const, text: callsInFlightMessage(counted(pending)) }];
  const notes = envelope.notes ?? [];
  const notesBlock =
    notes.length === 0
      ? []
      : [{ type: 'text' as const, text: cut(`${NOTES_BLOCK}${notes.join('\n')}`, maxResultLength) }];
  if (envelope.error !== undefined) {
    const kind = envelope.code === undefined ? '' : ` [${envelope.code}]`;
    const details = errorDetails(envelope);
    return {
      isError: true,
      content: [
        { type: 'text', text: cut(`${envelope.error}${kind}`, maxResultLength) },
        ...(details === '' ? [] : [{ type: 'text' as const, text: cut(details, maxResultLength) }]),
        ...notesBlock,
        ...logBlock,
        ...inFlightBlock,
      ],
    };
  }
  const text = envelope.result === undefined ? 'undefined' : stringifyForDispatch(envelope.result);
  const shown = cut(text, maxResultLength);
  const structured =
    isPlainObject(envelope.result) && shown === text ? { structuredContent: JSON.parse(text) } : {};
  return {
    content: [{ type: 'text', text: shown }, ...notesBlock, ...logBlock, ...inFlightBlock],
    ...structured,
  };
}

/**
 * What the envelope says beside its error, for the model that must mend its program: which call
 * failed and where in its code, and a thrown object's JSON (docs/mcp.md, "Results and errors").
 * One line each, empty when the envelope has neither.
 */
function errorDetails(envelope: CodeModeResult): string {
  const lines: string[] = [];
  if (envelope.errorProvider !== undefined && envelope.errorTool !== undefined) {
    const at = envelope.errorAt === undefined ? '' : ` at ${envelope.errorAt}`;
    lines.push(`${FAILED_CALL_LINE}${envelope.errorProvider}.${envelope.errorTool}${at}`);
  }
  if (envelope.errorJson !== undefined) lines.push(`${THROWN_LINE}${envelope.errorJson}`);
  return lines.join('\n');
}

/** `["a.x", "b.y", "a.x"]` → `["a.x (2)", "b.y (1)"]`, in the order each name first left. */
function counted(names: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${name} (${count})`);
}

function providersFor(execution: Execution, running: ExecutionCalls): CodeModeProvider[] {
  let calls = 0;
  const { catalog, policy, limits } = execution;
  const servers = catalog.upstreams.map((upstream) => upstream.key);
  return catalog.upstreams.map((upstream) => {
    const fns: Record<string, (args?: unknown) => Promise<unknown>> = Object.create(null);
    for (const tool of upstream.tools) {
      const call = `${upstream.namespace}.${sanitizeToolName(tool.name)}`;
      fns[tool.name] = async (args: unknown = {}) => {
        if (typeof args !== 'object' || args === null || Array.isArray(args)) {
          throw new TypeError(`${call} takes one arguments object, as its declaration says.`);
        }
        running.assertRunning(call);
        if (++calls > limits.maxUpstreamCalls) throw new Error(tooManyCallsMessage(limits.maxUpstreamCalls));
        const verdict = policy.decide({
          server: [upstream.key, upstream.namespace],
          tool: [tool.name, sanitizeToolName(tool.name)],
        });
        if (verdict.decision === 'deny') throw new Error(deniedMessage(call, verdict.rule));
        if (verdict.decision === 'ask') {
          // Read before any await: the call's durable context says which call of the run this is.
          const sequence = durableCall()?.sequence;
          const question = questionFor({
            server: upstream.key,
            servers,
            tool,
            args: args as Record<string, unknown>,
          });
          if (execution.round === undefined) await approve(execution, call, question, running.signal);
          else decideInRound(execution.round, sequence, call, question);
        }
        const answer = await running.track(call, (signal) =>
          upstream.call(tool.name, args as Record<string, unknown>, signal),
        );
        return toProgramValue(answer);
      };
    }
    return { name: upstream.namespace, fns };
  });
}

async function approve(
  execution: Execution,
  call: string,
  question: string,
  ended: AbortSignal,
): Promise<void> {
  if (execution.ask === undefined) throw new Error(noElicitationMessage(call));
  // Asked whole or not at all: a cut question hides the part a person most needs to see.
  if (question.length > QUESTION_LIMIT) {
    throw new Error(questionTooLongMessage(call, question.length, QUESTION_LIMIT));
  }
  execution.waiting?.(`waiting for the user to approve ${call}`);
  let answer: Awaited<ReturnType<NonNullable<AskUser>>>;
  try {
    // A person answering is not the program holding its child: the wall clock stops, and the
    // question's own approvalTimeout bounds the wait (docs/mcp.md, "Approvals").
    answer = await pauseWallClock(() => (execution.ask as NonNullable<AskUser>)(question, ended));
  } catch (error) {
    throw new Error(unansweredMessage(call, error instanceof Error ? error.message : String(error)));
  } finally {
    execution.waiting?.(undefined);
  }
  if (answer === 'decline') throw new Error(declinedMessage(call));
  if (answer !== 'accept') throw new Error(unansweredMessage(call, 'the question was dismissed'));
}

/**
 * An `ask` in an approval round: the retry's answer for this call when it has one (an accepted call
 * goes on to be made, any other answer throws the sentence the live question's would), else the
 * question is recorded under the call's sequence and the run pauses. The question is asked whole
 * or not at all, as live.
 */
function decideInRound(
  round: ApprovalRound,
  sequence: number | undefined,
  call: string,
  question: string,
): void {
  const decision = sequence === undefined ? undefined : round.decisions.get(sequence);
  if (decision === 'accept') return;
  if (decision === 'decline') throw new Error(declinedMessage(call));
  if (decision === 'cancel') throw new Error(unansweredMessage(call, 'the question was dismissed'));
  if (decision === 'missing') throw new Error(unansweredMessage(call, 'the retry carried no answer to it'));
  if (question.length > QUESTION_LIMIT) {
    throw new Error(questionTooLongMessage(call, question.length, QUESTION_LIMIT));
  }
  // Outside a durable run's call there is nothing to pause; the round always runs durably.
  if (sequence === undefined) throw new Error(noElicitationMessage(call));
  round.questions.set(sequence, question);
  pause({ call }, { reason: 'approval' });
}

function isTokenCode(code: string | undefined): code is string {
  return code !== undefined && (DURABLE_TOKEN_CODES as readonly string[]).includes(code);
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}${truncatedMarker(limit, text.length)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
