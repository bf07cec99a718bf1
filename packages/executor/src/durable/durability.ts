/**
 * What the holder of a key ring does for durable runs (docs/durable.md): starts a run (its seed
 * and clock), seals a paused run's journal into its token, and opens a token into a resume's start
 * after checking the answers against the pending calls. The in-process sandbox and
 * IsolateExecutor both hold one; a pool child never does, and runs from the start this hands it
 * (start.ts). The token is bound to the request as it travels (its wire part), the runtime the
 * isolates are made from, the three versions, and the principal the caller names; sealing and
 * opening are token.ts's. Nothing here loads isolated-vm: the caller's process holds the ring.
 */

import {
  type DispatchFrame,
  type EnvelopeCode,
  type ExecuteResult,
  type PausedRun,
  stringifyForDispatch,
} from '@supolka/codemode-protocol/wire';
import { RUNTIME_SOURCE } from '@supolka/codemode-runtime/bundle';
import { nodeCrypto } from '../sandbox/node-crypto.ts';
import type { SandboxWire } from '../sandbox/sandbox.ts';
import { installedIsolatedVm } from '../sandbox/setup/engine-addon.ts';
import { SANDBOX_SOURCE } from '../sandbox/setup/sandbox-source.ts';
import { packageVersion } from '../version.ts';
import type { DurableBinding } from './binding.ts';
import { DurableTokenError } from './errors.ts';
import { packBodies, unpackBodies } from './fetch-journal.ts';
import { type DurableState, pendingCalls, readJournal } from './journal.ts';
import type { PauseRequest } from './pause.ts';
import { newSeed, type Seed } from './random.ts';
import type { DurableStart, PausedJournal, ReplayAnswer, ResumeAnswer } from './start.ts';
import { PAUSED_JOURNAL_MESSAGE } from './texts.ts';
import { DurableTokens, type DurableTokensOptions, OpenedToken } from './token.ts';

/** How long a pausing run waits for settlements on their way into the isolate to be observed. */
export const SETTLE_MOMENT = 100;

/** The principal of a caller who names none: one audience for everyone who does not. */
export const DEFAULT_PRINCIPAL = '';

/** A paused run, as its envelope says it (the protocol's shape, since the wire carries it). */
export type { PausedRun };

/** The envelope of a durable run or a resume: an execution's, or paused, or refused with a durable code. */
export type DurableExecuteResult = ExecuteResult;

/** A durable run's end before sealing: its envelope, and when it paused, the journal and why. */
export interface DurableRunEnd {
  readonly envelope: ExecuteResult;
  readonly paused?: { readonly journal: PausedJournal; readonly request: PauseRequest } | undefined;
}

/** A refused resume: the sentence and its code, as the envelope carries them. */
export interface DurableRefusal {
  readonly error: string;
  readonly code: EnvelopeCode;
}

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

  /** A new durable run's start: a fresh seed, and the clock at the real time it begins. */
  start(): DurableStart {
    return { seed: this.#seed(), startedAt: Math.floor(Date.now()), logCount: 0 };
  }

  /**
   * Seals the journal of a run that paused (`start` is what it ran from, `pause` what the tool
   * that paused it said). A journal that does not read back as one (a pool child's that is not
   * running the sandbox) is refused as TOKEN_MALFORMED, never sealed.
   */
  seal(
    start: DurableStart,
    paused: PausedJournal,
    pause: PauseRequest,
    wire: SandboxWire,
    principal: string | undefined,
  ): PausedRun {
    const state: DurableState = {
      seed: start.seed,
      startedAt: start.startedAt,
      timers: paused.timers,
      fetches: paused.fetches,
      loads: paused.loads,
      logCount: start.logCount + paused.written,
      pause,
    };
    const read = readJournal(paused.journal, state);
    if (read === undefined) {
      throw new DurableTokenError('TOKEN_MALFORMED', PAUSED_JOURNAL_MESSAGE);
    }
    // Fetches count toward the journal's length as calls do; their bodies travel as the token's bytes.
    this.#tokens.checkJournalLength(paused.journal.length + paused.fetches.length);
    const { fetches, bytes } = packBodies(paused.fetches);
    const sealed = this.#tokens.seal(
      { journal: paused.journal, state: { ...state, fetches }, bytes },
      this.binding(wire, principal),
    );
    return {
      ...pause,
      pending: pendingCalls(read.journal),
      token: sealed.token,
      tokenId: sealed.tokenId,
      expiresAt: sealed.expiresAt,
    };
  }

  /**
   * The envelope of a durable run's end: as it came, or, for a run that paused, with its journal
   * sealed; a journal that cannot be sealed (too long, too large) is the envelope's error, with
   * the token module's code.
   */
  envelopeOf(
    end: DurableRunEnd,
    start: DurableStart,
    wire: SandboxWire,
    principal: string | undefined,
  ): DurableExecuteResult {
    if (end.paused === undefined) return end.envelope;
    try {
      const paused = this.seal(start, end.paused.journal, end.paused.request, wire, principal);
      return { ...end.envelope, paused };
    } catch (error) {
      return {
        result: undefined,
        logs: end.envelope.logs,
        error: error instanceof Error ? error.message : String(error),
        ...(error instanceof DurableTokenError ? { code: error.code } : {}),
      };
    }
  }

  /**
   * The start that resumes a token, with the opened token (its id and idempotency keys), or the
   * refusal: a token the token module refuses (its code), a journal of another shape, or answers
   * that are not exactly one per pending call.
   */
  async open(
    token: unknown,
    answers: ResumeAnswers,
    wire: SandboxWire,
    principal: string | undefined,
  ): Promise<{ start: DurableStart; token: OpenedToken } | DurableRefusal> {
    // Claimed only once every check passed, answers included: a resume refused for its answers
    // leaves the token to a corrected one.
    const opened = await this.openOnly(token, wire, principal, { claim: false });
    if (!(opened instanceof OpenedToken)) return opened;
    const read = readOpened(opened);
    if (read === undefined) {
      return {
        error: 'The token holds a journal this release cannot read: start the run again.',
        code: 'TOKEN_MALFORMED',
      };
    }
    try {
      this.#tokens.checkJournalLength(read.journal.length + read.state.fetches.length);
    } catch (error) {
      if (error instanceof DurableTokenError) return { error: error.message, code: error.code };
      throw error;
    }
    const checked = checkAnswers(read.journal, answers);
    if (!Array.isArray(checked)) return checked;
    try {
      await this.#tokens.claim(opened);
    } catch (error) {
      if (error instanceof DurableTokenError) return { error: error.message, code: error.code };
      throw error;
    }
    const start: DurableStart = {
      seed: read.state.seed,
      startedAt: read.state.startedAt,
      logCount: read.state.logCount,
      replay: {
        journal: read.journal,
        timers: read.state.timers,
        fetches: read.state.fetches,
        loads: read.state.loads,
        answers: checked,
      },
    };
    return { start, token: opened };
  }

  /**
   * The token opened under this request's and principal's binding (and claimed, with a claim
   * store), or the token module's refusal: what a resume does first, and all a discard does.
   */
  async openOnly(
    token: unknown,
    wire: SandboxWire,
    principal: string | undefined,
    options: { claim?: boolean } = {},
  ): Promise<OpenedToken | DurableRefusal> {
    try {
      return await this.#tokens.open(token, this.binding(wire, principal), options);
    } catch (error) {
      if (error instanceof DurableTokenError) return { error: error.message, code: error.code };
      throw error;
    }
  }

  /** What a token of this request and principal is bound to. */
  binding(wire: SandboxWire, principal: string | undefined): DurableBinding {
    return {
      request: requestParts(wire),
      runtime: runtimeFingerprint(),
      versions: engineVersions(),
      principal: principal ?? DEFAULT_PRINCIPAL,
    };
  }
}

/** An opened token's journal and state, its fetches' bodies read back out of its bytes. */
function readOpened(opened: OpenedToken): ReturnType<typeof readJournal> {
  const { journal, state, bytes } = opened.contents;
  if (typeof state !== 'object' || state === null) return undefined;
  const fetches = unpackBodies((state as { fetches?: unknown }).fetches, bytes);
  if (fetches === undefined) return undefined;
  return readJournal(journal, { ...state, fetches });
}

let versions: DurableBinding['versions'] | undefined;

/** The three versions a token is bound to, read once: none changes while the process runs. */
function engineVersions(): DurableBinding['versions'] {
  versions ??= {
    executor: packageVersion(),
    v8: process.versions.v8,
    isolatedVm: installedIsolatedVm() ?? 'unknown',
  };
  return versions;
}

let runtimeText: string | undefined;
/** The zone and locale as last read, with the TZ they were read under. */
let formatting: { readonly tz: string | undefined; readonly text: string } | undefined;

/**
 * The runtime a token is bound to: the runtime bundle and the sandbox's own isolate code, and the
 * time zone and locale the isolates format dates and text in, which follow the host process. A
 * program that prints a date replays to other text under another time zone, so a token opens only
 * where all of them are the same. The sources are hashed once; the zone is read again whenever TZ
 * differs from the last read, since Node changes it when TZ is assigned (reading it costs a
 * quarter of a millisecond, a fifth of a token's open).
 */
function runtimeFingerprint(): string {
  runtimeText ??= nodeCrypto()
    .createHash('sha256')
    .update(RUNTIME_SOURCE)
    .update('\0')
    .update(SANDBOX_SOURCE)
    .digest('base64url');
  const tz = process.env.TZ;
  if (formatting === undefined || formatting.tz !== tz) {
    const { timeZone, locale } = new Intl.DateTimeFormat().resolvedOptions();
    formatting = { tz, text: `${timeZone} ${locale}` };
  }
  return `${runtimeText} ${formatting.text}`;
}

/**
 * The parts of the request a token is bound to, as plain JSON: the program and everything that
 * decides what it asks of the host (modules, providers with their tool names, prelude, proxy
 * source and positional arguments, the outbound mode), its bounds, and the console format: the
 * resume drops the lines the paused run already returned by count, so lines written in another
 * format would join a log whose first part was written in this one.
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
    consoleFormat: wire.consoleFormat,
  };
}

/**
 * The caller's answers as the replay's, one per pending call, or why they are refused: an answer
 * missing or given for a call that is not pending, `perform` for a call whose outcome is unknown,
 * or an answer of another shape.
 */
function checkAnswers(
  journal: Parameters<typeof pendingCalls>[0],
  answers: ResumeAnswers,
): ReplayAnswer[] | DurableRefusal {
  const byCall = answerMap(answers);
  const calls = pendingCalls(journal);
  const pending = calls.map((call) => call.sequence);
  const missing = pending.filter((sequence) => !byCall.has(sequence));
  const unknown = [...byCall.keys()].filter((sequence) => !pending.includes(sequence));
  if (missing.length > 0 || unknown.length > 0) {
    return { error: answersMessage(pending, missing, unknown), code: 'BAD_REQUEST' };
  }
  const unknownOutcome = new Set(
    calls.filter((call) => call.outcome === 'unknown').map((call) => call.sequence),
  );
  const replay: ReplayAnswer[] = [];
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
    replay.push('perform' in answer ? { sequence, perform: true } : { sequence, frame: answerFrame(answer) });
  }
  return replay;
}

/** The frame a call settles with when the caller answered it: the tool's envelope, as a tool would have answered. */
function answerFrame(answer: { readonly result: unknown } | { readonly error: string }): DispatchFrame {
  return [
    'returned',
    stringifyForDispatch('error' in answer ? { error: answer.error } : { result: answer.result }),
  ];
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
