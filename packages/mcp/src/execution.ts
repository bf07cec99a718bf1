/**
 * One `execute` call: the program run through IsolateExecutor's Code Mode form with one provider
 * per upstream, each tool a function that counts the call, asks the approval policy (and, for
 * `ask`, the user through the client), calls the upstream and maps its result. The run clock pauses
 * over each of those calls, as over any tool call. The envelope becomes the tool result: its text
 * (and structuredContent for an object), beside an error which call failed and where, the notes on
 * values serialization changed, the console lines, each block cut past maxResultLength with a marker.
 */

import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CodeModeProvider, CodeModeResult, IsolateExecutor } from '@supolka/codemode-executor';
import { pauseWallClock, sanitizeToolName } from '@supolka/codemode-executor';
import { stringifyForDispatch } from '@supolka/codemode-protocol';
import { QUESTION_LIMIT, questionFor } from './approval-question.ts';
import type { ApprovalPolicy } from './approvals.ts';
import type { Catalog } from './catalog.ts';
import { ExecutionCalls } from './execution-calls.ts';
import { toProgramValue } from './results.ts';
import {
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
  /** Why `ask` is undefined, when the reason is not that the client lacks elicitation. */
  readonly cannotAsk?: (call: string) => string;
  /** The client's cancellation of the execute request: aborting ends the run with CANCELLED. */
  readonly signal?: AbortSignal;
  /** The session it runs for: sessions share the executor by turns (docs/pool.md, "Fair queues"). */
  readonly callerId?: string;
  /** Says what the run is waiting on, for progress notifications. */
  readonly waiting?: (what: string | undefined) => void;
}

export async function runExecution(execution: Execution): Promise<CallToolResult> {
  const { signal, callerId } = execution;
  const calls = new ExecutionCalls();
  let envelope: Awaited<ReturnType<IsolateExecutor['execute']>>;
  let pending: string[];
  try {
    envelope = await execution.executor.execute(execution.code, providersFor(execution, calls), {
      ...(signal ? { signal } : {}),
      ...(callerId !== undefined ? { callerId } : {}),
    });
  } finally {
    pending = calls.end();
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
          const question = questionFor({
            server: upstream.key,
            servers,
            tool,
            args: args as Record<string, unknown>,
          });
          await approve(execution, call, question, running.signal);
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
  if (execution.ask === undefined) throw new Error((execution.cannotAsk ?? noElicitationMessage)(call));
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

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}${truncatedMarker(limit, text.length)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
