/**
 * What a sandbox with a key ring does for durable runs (docs/durable.md): starts a run's session,
 * seals a paused run's journal into its token, and opens a token into a resume's session after
 * checking the answers against the pending calls. The token is bound to the request as it travels
 * (its wire part), the runtime the isolates are made from, the three versions, and the principal
 * the caller names; sealing and opening are token.ts's.
 */
import { createHash } from 'node:crypto';
import { type ExecuteResult, type FaultCode, stringifyForDispatch } from '@supolka/codemode-protocol/wire';
import { RUNTIME_SOURCE } from '@supolka/codemode-runtime/bundle';
import { isolatedVmVersion } from '../sandbox/isolate.ts';
import type { SandboxWire } from '../sandbox/sandbox.ts';
import { SANDBOX_SOURCE } from '../sandbox/setup/sandbox-source.ts';
import { packageVersion } from '../version.ts';
import type { DurableBinding } from './binding.ts';
import { type DurableTokenCode, DurableTokenError } from './errors.ts';
import { type DurableState, type PendingCall, pendingCalls, readJournal } from './journal.ts';
import { newSeed, type Seed } from './random.ts';
import type { REPLAY_DIVERGED } from './replay-texts.ts';
import { DurableSession, type ResumeAnswer } from './session.ts';
import { DurableTokens, type DurableTokensOptions } from './token.ts';

/** How long a pausing run waits for settlements on their way into the isolate to be observed. */
export const SETTLE_MOMENT = 100;

/** The principal of a caller who names none: one audience for everyone who does not. */
export const DEFAULT_PRINCIPAL = '';

/** A paused run, as its envelope says it. */
export interface PausedRun {
  readonly reason?: string;
  readonly data?: unknown;
  /** The calls the run was waiting on: a resume answers each, by sequence. */
  readonly pending: readonly PendingCall[];
  /** The sealed journal, for resume(). */
  readonly token: string;
  readonly tokenId: string;
  readonly expiresAt: number;
}

/** The envelope of a durable run or a resume: an execution's, or paused, or refused with a durable code. */
export type DurableExecuteResult = Omit<ExecuteResult, 'code'> & {
  code?: FaultCode | DurableTokenCode | typeof REPLAY_DIVERGED;
  paused?: PausedRun;
};

/** A resume's answers: by the pending call's sequence. */
export type ResumeAnswers = ReadonlyMap<number, ResumeAnswer> | Readonly<Record<number, ResumeAnswer>>;

export interface DurabilityOptions extends DurableTokensOptions {
  /**
   * For tests and reproductions only: every new durable run's seed (four 32-bit integers) from
   * this function instead of the host's random source. Runs with one seed draw the same
   * Math.random, getRandomValues and randomUUID values, which no secret may then depend on.
   */
  readonly unsafeSeed?: () => Seed;
}

export class Durability {
  readonly #tokens: DurableTokens;
  readonly #seed: () => Seed;

  constructor(options: DurabilityOptions) {
    this.#tokens = new DurableTokens(options);
    this.#seed = options.unsafeSeed ?? newSeed;
  }

  /** A new durable run's session. */
  start(): DurableSession {
    return new DurableSession({ seed: this.#seed(), startedAt: Math.floor(Date.now()) });
  }

  /** Seals the journal of a run that paused, with the lines it wrote up to now. */
  seal(
    session: DurableSession,
    wire: SandboxWire,
    principal: string | undefined,
    written: number,
  ): PausedRun {
    const stop = session.stop;
    if (stop?.kind !== 'paused') throw new Error('Only a paused run is sealed.');
    const state: DurableState = {
      seed: session.seed,
      startedAt: session.startedAt,
      timers: session.timers,
      logCount: session.skipLines + written,
      pause: stop.request,
    };
    const journal = session.journal;
    const sealed = this.#tokens.seal({ journal, state }, this.binding(wire, principal));
    return {
      ...stop.request,
      pending: pendingCalls(journal),
      token: sealed.token,
      tokenId: sealed.tokenId,
      expiresAt: sealed.expiresAt,
    };
  }

  /**
   * The session that resumes a token, or the refusal: a token the token module refuses (its
   * code), a journal of another shape, or answers that are not exactly one per pending call.
   */
  async open(
    token: unknown,
    answers: ResumeAnswers,
    wire: SandboxWire,
    principal: string | undefined,
  ): Promise<DurableSession | { error: string; code: DurableTokenCode | FaultCode }> {
    let opened: Awaited<ReturnType<DurableTokens['open']>>;
    try {
      opened = await this.#tokens.open(token, this.binding(wire, principal));
    } catch (error) {
      if (error instanceof DurableTokenError) return { error: error.message, code: error.code };
      throw error;
    }
    const read = readJournal(opened.contents.journal, opened.contents.state);
    if (read === undefined) {
      return {
        error: 'The token holds a journal this release cannot read: start the run again.',
        code: 'TOKEN_MALFORMED',
      };
    }
    const byCall = answerMap(answers);
    const pending = pendingCalls(read.journal).map((call) => call.sequence);
    const missing = pending.filter((sequence) => !byCall.has(sequence));
    const unknown = [...byCall.keys()].filter((sequence) => !pending.includes(sequence));
    if (missing.length > 0 || unknown.length > 0) {
      return { error: answersMessage(pending, missing, unknown), code: 'BAD_REQUEST' };
    }
    const unknownOutcome = new Set(
      pendingCalls(read.journal)
        .filter((call) => call.outcome === 'unknown')
        .map((call) => call.sequence),
    );
    for (const [sequence, answer] of byCall) {
      if (
        unknownOutcome.has(sequence) &&
        typeof answer === 'object' &&
        answer !== null &&
        'perform' in answer
      ) {
        return { error: unknownOutcomeMessage(sequence), code: 'BAD_REQUEST' };
      }
      const problem = answerProblem(answer);
      if (problem !== undefined)
        return { error: `The answer to call ${sequence} ${problem}`, code: 'BAD_REQUEST' };
    }
    return new DurableSession({
      seed: read.state.seed,
      startedAt: read.state.startedAt,
      skipLines: read.state.logCount,
      replay: { journal: read.journal, timers: read.state.timers, answers: byCall, token: opened },
    });
  }

  /** What a token of this request and principal is bound to. */
  binding(wire: SandboxWire, principal: string | undefined): DurableBinding {
    return {
      request: requestParts(wire),
      runtime: runtimeFingerprint(),
      versions: { executor: packageVersion(), v8: process.versions.v8, isolatedVm: isolatedVmVersion() },
      principal: principal ?? DEFAULT_PRINCIPAL,
    };
  }
}

let runtimeText: string | undefined;

/**
 * The runtime a token is bound to: the runtime bundle and the sandbox's own isolate code, and the
 * time zone and locale the isolates format dates and text in, which follow the host process. A
 * program that prints a date replays to other text under another time zone, so a token opens only
 * where all of them are the same. The sources are hashed once; the zone is read each time, since
 * Node changes it when TZ is assigned.
 */
function runtimeFingerprint(): string {
  runtimeText ??= createHash('sha256')
    .update(RUNTIME_SOURCE)
    .update('\0')
    .update(SANDBOX_SOURCE)
    .digest('base64url');
  const { timeZone, locale } = new Intl.DateTimeFormat().resolvedOptions();
  return `${runtimeText} ${timeZone} ${locale}`;
}

/**
 * The parts of the request a token is bound to, as plain JSON: the program and everything that
 * decides what it asks of the host (modules, providers with their tool names, prelude, proxy
 * source and positional arguments, the outbound mode) and its bounds.
 */
function requestParts(wire: SandboxWire): Record<string, unknown> {
  return {
    code: wire.code,
    modules: wire.modules,
    providers: (wire.providers ?? []).map(({ ...descriptor }) => descriptor),
    outbound: wire.outbound ?? 'disabled',
    timeout: wire.timeout,
    memoryLimit: wire.memoryLimit,
    typescript: wire.typescript,
    countHostWaits: wire.countHostWaits,
  };
}

function answerMap(answers: ResumeAnswers): Map<number, ResumeAnswer> {
  if (answers instanceof Map) return new Map(answers);
  const map = new Map<number, ResumeAnswer>();
  for (const [key, answer] of Object.entries(answers ?? {})) map.set(Number(key), answer);
  return map;
}

function answerProblem(answer: ResumeAnswer): string | undefined {
  if (typeof answer !== 'object' || answer === null)
    return 'must be { result }, { error } or { perform: true }.';
  const keys = Object.keys(answer);
  if (keys.length !== 1) return 'must have exactly one of result, error and perform.';
  if ('error' in answer && typeof answer.error !== 'string') return 'has an error that is not a string.';
  if ('perform' in answer && answer.perform !== true) return 'has perform, which must be true.';
  if ('result' in answer) {
    try {
      stringifyForDispatch({ result: answer.result });
    } catch (error) {
      return `has a result the codec cannot carry: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return undefined;
}

function unknownOutcomeMessage(sequence: number): string {
  return `Call ${sequence} was still running when the run paused, so whether it did its work is unknown: a resume never performs it again. Answer it with { result } or { error } after finding out what it did.`;
}

function answersMessage(
  pending: readonly number[],
  missing: readonly number[],
  unknown: readonly number[],
): string {
  const parts = [`A resume answers each pending call once; the pending calls are ${pending.join(', ')}.`];
  if (missing.length > 0) parts.push(`No answer for ${missing.join(', ')}.`);
  if (unknown.length > 0)
    parts.push(`${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not pending.`);
  return parts.join(' ');
}
