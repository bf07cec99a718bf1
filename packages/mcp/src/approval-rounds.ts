/**
 * Approvals for a client on the current revision (2026-07-28), which has no request from server
 * to client: its way to ask is a multi round-trip request. The execute program runs as a durable
 * execution (docs/durable.md); an `ask` pauses it, and the call is answered with an
 * InputRequiredResult holding one elicitation per question and a requestState holding the sealed
 * token (request-state.ts). The client asks its user and calls execute again with the answers and
 * the state; whichever bridge instance receives that retry resumes the run from the token: an
 * accepted call is made, a declined one throws in the program, and a later `ask` pauses again.
 *
 * The token is bound to the run's request (the code and the tools), and, through the principal, to
 * the client's identity and the call's arguments, so the state resumes nothing for another client
 * or another call; it expires after approvalTimeout. Nothing of a paused run stays behind but,
 * for a token too large for a requestState, its copy in the journal store.
 */
import { createHash } from 'node:crypto';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { PausedRun, ResumeAnswer } from '@supolka/codemode-executor';
import {
  type ApprovalRound,
  type Execution,
  isPaused,
  type PausedExecution,
  type RoundDecision,
  runExecution,
} from './execution.ts';
import { type JournalStore, JournalStoreError, JournalStoreFullError } from './journal-store.ts';
import {
  decodeRequestState,
  encodeRequestState,
  type PendingApproval,
  REQUEST_STATE_LIMIT,
} from './request-state.ts';
import {
  badRequestStateMessage,
  OUTCOME_UNKNOWN_MESSAGE,
  STATE_NOT_STORED_REASON,
  stateNotKeptMessage,
  stateNotReadMessage,
  stateStoreFullMessage,
  stateStoreRefusedMessage,
  stateTooLargeMessage,
} from './texts.ts';

/** The key of the question about the pending call of `sequence`, in inputRequests and inputResponses. */
export function questionKey(sequence: number): string {
  return `approve-${sequence}`;
}

/** Whether the request's client declares elicitation, which answering an InputRequiredResult needs. */
export function canElicit(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  return capabilities?.elicitation !== undefined;
}

/**
 * Whom a paused run is for: the client's identity (served.ts names it per transport) and a hash of
 * the execute call's arguments. The token carries only an HMAC of it, so neither leaves the bridge.
 */
export function principalFor(identity: string, args: Readonly<Record<string, unknown>>): string {
  const sorted = Object.fromEntries(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const hash = createHash('sha256').update(JSON.stringify(sorted)).digest('base64url');
  return `codemode-mcp approval 1\n${identity}\n${hash}`;
}

export interface RoundContext {
  readonly identity: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly store: JournalStore | undefined;
}

/** One execute call of a client on the current revision: a first run, or the resume its state names. */
export async function runApprovalRound(
  execution: Execution,
  ctx: ServerContext,
  context: RoundContext,
): Promise<CallToolResult | InputRequiredResult> {
  const principal = principalFor(context.identity, context.args);
  const echoed = ctx.mcpReq.requestState();
  let round: ApprovalRound;
  let spent: string | undefined;
  if (echoed === undefined) {
    round = { principal, decisions: new Map(), questions: new Map() };
  } else {
    const read = await readRound(echoed, ctx, context.store);
    if (typeof read === 'string') return refusal(read);
    const { reference, ...resumed } = read;
    spent = reference;
    round = { principal, ...resumed, questions: new Map() };
  }
  const outcome = await runExecution({ ...execution, round });
  if (!isPaused(outcome)) return outcome;
  // The kept state resumed (its token is claimed) and paused again: a program that asks round
  // after round keeps one state in the store, not one per round until each expires.
  if (spent !== undefined) await context.store?.remove?.(spent);
  return askFor(outcome, round.questions, context.store);
}

/** The retry's answers and the run its state names, or the sentence refusing it. */
async function readRound(
  echoed: unknown,
  ctx: ServerContext,
  store: JournalStore | undefined,
): Promise<(Pick<ApprovalRound, 'decisions' | 'resume'> & { reference?: string }) | string> {
  const state = decodeRequestState(echoed);
  if (typeof state === 'string') return badRequestStateMessage(state);
  let token: string | undefined;
  try {
    token = 'token' in state ? state.token : await store?.get(state.reference);
  } catch (error) {
    // A folder refused since startup, or one that is gone: the client's error, never a crash.
    return stateNotReadMessage(error instanceof JournalStoreError ? undefined : errorCode(error));
  }
  if (token === undefined) return badRequestStateMessage(STATE_NOT_STORED_REASON);
  const decisions = new Map<number, RoundDecision>();
  const answers: Record<number, ResumeAnswer> = {};
  for (const call of state.pending) {
    if (!call.asked) {
      answers[call.sequence] = { error: OUTCOME_UNKNOWN_MESSAGE };
      continue;
    }
    // Every asked call is performed: the program's function finds the answer and makes the call,
    // or throws the sentence a live decline or dismissal throws (execution.ts, decideInRound).
    decisions.set(call.sequence, decisionIn(ctx.mcpReq.inputResponses, questionKey(call.sequence)));
    answers[call.sequence] = { perform: true };
  }
  return {
    decisions,
    resume: { token, answers },
    ...('reference' in state ? { reference: state.reference } : {}),
  };
}

/**
 * The retry's answer to the question `key`, read from the responses' own entries only: the SDK's
 * reading of the request may leave a client's `"__proto__"` key as the object's prototype, and an
 * answer found through it is one the client never gave under that key.
 */
function decisionIn(responses: ServerContext['mcpReq']['inputResponses'], key: string): RoundDecision {
  if (responses === undefined || !Object.hasOwn(responses, key)) return 'missing';
  const view = inputResponse(responses, key);
  return view.kind === 'elicit' ? view.action : 'missing';
}

/** The answer of a run that paused: its questions, and the state that resumes it. */
async function askFor(
  { paused }: PausedExecution,
  questions: ReadonlyMap<number, string>,
  store: JournalStore | undefined,
): Promise<CallToolResult | InputRequiredResult> {
  const pending: PendingApproval[] = paused.pending.map((call) => ({
    sequence: call.sequence,
    asked: call.outcome !== 'unknown' && questions.has(call.sequence),
  }));
  const inputRequests = Object.fromEntries(
    pending
      .filter((call) => call.asked)
      .map((call) => [
        questionKey(call.sequence),
        inputRequired.elicit({
          message: questions.get(call.sequence) as string,
          requestedSchema: { type: 'object', properties: {} },
        }),
      ]),
  );
  const requestState = await stateOf(paused, pending, store);
  if (typeof requestState !== 'string') return requestState;
  return inputRequired({ inputRequests, requestState });
}

/** The token itself when it fits REQUEST_STATE_LIMIT; else a reference to it in the journal store. */
async function stateOf(
  paused: PausedRun,
  pending: readonly PendingApproval[],
  store: JournalStore | undefined,
): Promise<string | CallToolResult> {
  const whole = encodeRequestState({ pending, token: paused.token });
  if (whole.length <= REQUEST_STATE_LIMIT) return whole;
  if (store === undefined) return refusal(stateTooLargeMessage(whole.length, REQUEST_STATE_LIMIT));
  let reference: string;
  try {
    reference = await store.put(paused.token, paused.expiresAt);
  } catch (error) {
    // A store at its bound, refused, full or read-only is the call's error, as a state too large
    // without one is; the system's own error names the store's files, so only its code is said.
    if (error instanceof JournalStoreFullError)
      return refusal(stateStoreFullMessage(whole.length, error.limit));
    if (error instanceof JournalStoreError) return refusal(stateStoreRefusedMessage(whole.length));
    return refusal(stateNotKeptMessage(whole.length, errorCode(error)));
  }
  return encodeRequestState({ pending, reference });
}

/** A system error's code (ENOSPC, EROFS), never its message, which names the store's files. */
function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'failed';
}

function refusal(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
