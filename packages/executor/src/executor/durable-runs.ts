/**
 * Durable runs through IsolateExecutor (docs/durable.md, "Through the pool"): the executor holds
 * the key ring, so it is here that a durable request gets its start, that a token is opened into a
 * resume's (claimed, when there is a claim store), and that the journal a pool child hands back
 * from a paused run is sealed into the paused envelope's token. The child runs the program from
 * the start and never sees a key; each call it performs runs here in its durable context
 * (pool/durable-calls.ts). A durable run or a resume asked for from inside a durable run's tool
 * call is refused, and an execution started there is served nested, where pause() cannot reach
 * the outer run (docs/durable.md, "Nested executions").
 */
import {
  type EnvelopeCode,
  type ExecuteRequest,
  type ExecuteResult,
  faultEnvelope,
} from '@supolka/codemode-protocol/wire';
import type {
  Durability,
  DurabilityOptions,
  DurableExecuteResult,
  ResumeAnswers,
} from '../durable/durability.ts';
import { insideDurableCall, servedNested } from '../durable/pause.ts';
import {
  DURABLE_RETAINS_MESSAGE,
  NESTED_DURABLE_MESSAGE,
  NESTED_RESUME_MESSAGE,
  NO_KEY_RING_MESSAGE,
} from '../durable/texts.ts';
import { DurableTokens } from '../durable/token.ts';
import { DurableCalls } from '../pool/durable-calls.ts';
import type { RequestHost } from './request.ts';

/** A resume: the token a paused envelope carried, and an answer for each of its pending calls. */
export interface Resumption {
  readonly token: unknown;
  readonly answers: ResumeAnswers;
}

/** What discard answers: the token spent (when a claim store can spend it), or why it was refused. */
export type DiscardResult =
  | {
      readonly discarded: true;
      readonly tokenId: string;
      /** Whether a claim store recorded it, so that no resume can use it again; without one it resumes until it expires. */
      readonly claimed: boolean;
    }
  | { readonly discarded: false; readonly error: string; readonly code: EnvelopeCode };

export class DurableRuns {
  readonly #options: DurabilityOptions | undefined;
  /** Loaded with the first durable request: it holds the runtime's sources, which the library's import must not load. */
  #durability: Promise<Durability> | undefined;
  readonly #claims: boolean;

  /** Throws what the token module throws for options that do not hold, where the executor is made. */
  constructor(options: DurabilityOptions | undefined) {
    if (options !== undefined) new DurableTokens(options);
    this.#options = options;
    this.#claims = options?.claims !== undefined;
  }

  /** The holder of the ring, loaded once; only a request that passed refusal() asks for it. */
  #ring(): Promise<Durability> {
    this.#durability ??= import('../durable/durability.ts').then(
      ({ Durability }) => new Durability(this.#options as DurabilityOptions),
    );
    return this.#durability;
  }

  /**
   * Why a durable request (or a resume, `resuming`) is refused before anything runs: started
   * inside a durable run's tool call, on an executor without a key ring, or retaining handles.
   */
  refusal(wire: ExecuteRequest, resuming: boolean): ExecuteResult | undefined {
    if (insideDurableCall())
      return faultEnvelope('BAD_REQUEST', resuming ? NESTED_RESUME_MESSAGE : NESTED_DURABLE_MESSAGE);
    if (this.#options === undefined) return faultEnvelope('BAD_REQUEST', NO_KEY_RING_MESSAGE);
    if (wire.retainHandles === true) return faultEnvelope('BAD_REQUEST', DURABLE_RETAINS_MESSAGE);
    return undefined;
  }

  /** A new durable run's calls, with its fresh start. */
  async begin(): Promise<DurableCalls> {
    return new DurableCalls((await this.#ring()).start());
  }

  /** A resume's calls, from the opened token, or the envelope of its refusal. */
  async reopen(
    resumption: Resumption,
    wire: ExecuteRequest,
    principal: string | undefined,
  ): Promise<DurableCalls | ExecuteResult> {
    const opened = await (await this.#ring()).open(resumption.token, resumption.answers, wire, principal);
    if (!('start' in opened)) return { result: undefined, logs: [], ...opened };
    return new DurableCalls(opened.start, opened.token);
  }

  /** The envelope of a durable run that ended: a pause's journal sealed into its token. */
  async finish(
    calls: DurableCalls,
    envelope: ExecuteResult,
    wire: ExecuteRequest,
    principal: string | undefined,
  ): Promise<DurableExecuteResult> {
    return (await this.#ring()).envelopeOf(calls.end(envelope), calls.start, wire, principal);
  }

  /**
   * Spends a paused run's token without resuming it: opened as a resume would open it (the same
   * request and principal), which a claim store records as used. Without a store nothing is held
   * anywhere to forget: the token stays resumable until it expires, and `claimed` says so.
   */
  async discard(token: unknown, wire: ExecuteRequest, principal: string | undefined): Promise<DiscardResult> {
    const refusal = this.refusal(wire, true);
    if (refusal !== undefined)
      return { discarded: false, error: refusal.error as string, code: 'BAD_REQUEST' };
    const opened = await (await this.#ring()).openOnly(token, wire, principal);
    if ('error' in opened) return { discarded: false, ...opened };
    return { discarded: true, tokenId: opened.tokenId, claimed: this.#claims };
  }
}

/**
 * The host part of an execution started inside a durable run's tool call: its functions served
 * in the nested context, where pause() is refused instead of pausing the outer run.
 */
export function nestedHost<Host extends RequestHost>(host: Host): Host {
  if (!insideDurableCall()) return host;
  const { dispatch, outbound } = host;
  return {
    ...host,
    dispatch: dispatch && ((provider, tool, args) => servedNested(() => dispatch(provider, tool, args))),
    outbound: outbound && ((request, init) => servedNested(() => outbound(request, init))),
  };
}
