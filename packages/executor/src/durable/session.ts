/**
 * One durable run's calls, between the isolate's dispatch bridge and the caller's functions
 * (docs/durable.md, "The model"). Live, it performs each call in its durable context, journals the
 * call and its settlement under the sequence the isolate observed it by, and ends the run when a
 * call paused. Resumed, it first serves the journal: each call the program makes is checked
 * against the journal's call of the same sequence, and the journaled settlements are delivered in
 * the isolate's recorded order, each once the call it settles has been made again, with no host
 * call. Only when every journaled call has been made again and every settlement delivered does the
 * run go live: the pending calls are answered from the caller's answers and later calls are
 * performed. Anything else the program does first (another call, other arguments, another order,
 * fewer calls) ends the run as diverged, before anything ran live.
 */
import { type DispatchFrame, IN_FLIGHT_CALL_LIMIT, PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';
import { FETCH_BODY_JOURNAL_LIMIT, LOST_FETCH_FRAME } from './fetch-journal.ts';
import {
  type FetchEntry,
  type FetchSettlement,
  type JournalEntry,
  type LoadEntry,
  type LoadSettlement,
  type Observed,
  type Settlement,
  settlementOrder,
  type TimerEntry,
  type TimerSettlement,
} from './journal.ts';
import { MAX_JOURNAL_LENGTH, MAX_TOKEN_SIZE } from './limits.ts';
import { type ExpectedAnswer, type Observation, ObservedAnswers } from './observed-answers.ts';
import { type DurableCallContext, type PauseRequest, performInContext } from './pause.ts';
import { type Seed, SeededRandom } from './random.ts';
import {
  divergedArgumentsMessage,
  divergedCallMessage,
  divergedFetchMessage,
  divergedObservationMessage,
  divergedOrderMessage,
  divergedPastJournalMessage,
  divergedTimerMessage,
} from './replay-texts.ts';
import type { DurableStart, PausedJournal, ReplayAnswer, ResumeKeys } from './start.ts';
import { fetchBodiesTooLargeMessage, journalPastMostMessage, journalTooLargeMessage } from './texts.ts';

/** How the dispatch bridge lets the session serve one call. */
export interface CallIo {
  /** Calls the caller's function (with the bridge's bounds); never rejects. */
  readonly perform: () => Promise<DispatchFrame>;
  /** Delivers the settlement into the isolate; resolves to the sequence it observed it under. */
  readonly deliver: (frame: DispatchFrame, time: number) => Promise<number | undefined> | undefined;
}

/** What the host answers one fetch with: its frame as JSON text, and the body it hands the isolate. */
export interface FetchAnswer {
  readonly frame: string;
  /** The bytes the isolate takes; null when there are none, or the program will not take them. */
  readonly body: Uint8Array | null;
}

/** Why a paused run's journal cannot be sealed, as its envelope says it. */
export interface Unsealable {
  readonly code: 'TOKEN_TOO_LARGE' | 'JOURNAL_TOO_LONG';
  readonly message: string;
}

/**
 * Characters an entry of the journal counts for beside its texts, so that entries with next to no
 * text (delays, small calls) are bounded too: about what one takes in the token's JSON.
 */
const ENTRY_CHARS = 64;

/** What a resume's replayed journal counts for toward what the session keeps (#keep), without its fetch bodies. */
function replayedChars(replay: NonNullable<DurableStart['replay']>): number {
  let chars = 0;
  for (const { provider, tool, args, settled } of replay.journal) {
    chars += ENTRY_CHARS + provider.length + tool.length + args.length + (settled?.frame[1].length ?? 0);
  }
  for (const { request, settled } of replay.fetches)
    chars += ENTRY_CHARS + request.length + (settled?.frame.length ?? 0);
  return chars + ENTRY_CHARS * (replay.timers.length + replay.loads.length);
}

/** Why the run stopped before its program settled. */
export type DurableStop =
  | { readonly kind: 'paused'; readonly request: PauseRequest }
  | { readonly kind: 'diverged'; readonly message: string };

/** A resume's replay: the opened token's journal and the caller's answers to its pending calls. */
interface Replay {
  readonly journal: readonly JournalEntry[];
  readonly timers: readonly TimerEntry[];
  readonly fetches: readonly FetchEntry[];
  readonly loads: readonly LoadEntry[];
  readonly answers: ReadonlyMap<number, ReplayAnswer>;
  /** Absent in a pool child: its parent, which holds the key, gives each performed call its context. */
  readonly keys: ResumeKeys | undefined;
}

interface LiveTimer {
  readonly ms: number;
  settled?: TimerSettlement;
}

interface LiveFetch {
  readonly request: string;
  settled?: FetchSettlement;
}

interface LiveLoad {
  settled?: LoadSettlement;
}

interface LiveEntry {
  readonly provider: string;
  readonly tool: string;
  readonly args: string;
  settled?: Settlement;
  /** While the caller's function for this call runs. */
  performing?: boolean;
  unknown?: true;
}

/** A live call's settlement as it was sent into the isolate. */
interface SentSettlement {
  readonly time: number;
  readonly frame: DispatchFrame;
}

/** Waits for `promises` to settle, at most `ms`. */
async function within(ms: number, promises: readonly Promise<unknown>[]): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

export class DurableSession {
  readonly seed: Seed;
  readonly startedAt: number;
  readonly random: SeededRandom;
  /** Console lines the run wrote before its last pause; a resume does not write them again. */
  readonly skipLines: number;
  /** Settles once, when the run paused or diverged. */
  readonly stopped: Promise<DurableStop>;
  #stop: DurableStop | undefined;
  #resolveStop: (stop: DurableStop) => void = () => {};
  /**
   * The calls, by sequence (the call with sequence n is entry n - 1), with the live settlements
   * sent into the isolate whose observed sequence has not come back, by sequence, in the order sent.
   */
  readonly #calls = new ObservedAnswers<LiveEntry, Settlement, SentSettlement>();
  readonly #deliveries = new Set<Promise<void>>();
  /** Calls whose caller's function is still running. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Set once the journal was read for sealing: nothing is delivered into the run after that. */
  #sealed = false;
  #lastTime: number;
  // Replay only.
  readonly #replay: Replay | undefined;
  readonly #order: Observed[];
  readonly #io = new Map<number, CallIo>();
  /**
   * Every delay the program asked for; live, started delays by the expiry count the isolate knows
   * them by; in a replay, the delays the journal did not see expire, started when the run goes live.
   */
  readonly #timers = new ObservedAnswers<LiveTimer, TimerSettlement, number>();
  /** Expiries the journal delivered: the host's counts continue after them. */
  readonly #timerBase: number;
  /**
   * Every request fetch sent, by the runtime's request id; in a replay, the requests the journal
   * does not hold, sent when the run goes live.
   */
  readonly #fetches = new ObservedAnswers<LiveFetch, FetchSettlement, FetchAnswer>();
  /** Set once the settle moment after a pause is over: later fetch and load answers are not journaled. */
  #answersClosed = false;
  /** Body bytes the journal holds; past FETCH_BODY_JOURNAL_LIMIT it keeps no more. */
  #bodyBytes = 0;
  /**
   * What the journal holds besides fetch bodies, live: the characters of its texts (ENTRY_CHARS an
   * entry beside them), and its calls and fetch requests, which a token's length counts. Past
   * MAX_TOKEN_SIZE, or past MAX_JOURNAL_LENGTH, no token could hold it: it is let go (`#overflow`).
   */
  #keptChars: number;
  #keptEntries: number;
  #overflow: 'text' | 'entries' | undefined;
  /**
   * Every module load import() asked for, by the isolate's number; in a replay, loads whose answer
   * waits for its journaled turn, and those the journal did not see answered, answered when the
   * run goes live.
   */
  readonly #loads = new ObservedAnswers<LiveLoad, LoadSettlement, void>();
  /** Replay: calls past the journal, made once the run is live, in the order the program made them. */
  readonly #pastJournal: (() => void)[] = [];
  /** The characters of their texts, which they hold until then. */
  #pastJournalChars = 0;
  #next = 0;
  /** Replay: the highest sequence of the journal's own calls made again. */
  #made = 0;
  #delivering = false;
  #live: boolean;

  /** `keys` are the opened token's, for a resume in the process that holds the key. */
  constructor(start: DurableStart, keys?: ResumeKeys) {
    this.seed = start.seed;
    this.startedAt = start.startedAt;
    this.random = new SeededRandom(start.seed);
    this.skipLines = start.logCount;
    this.#lastTime = start.startedAt;
    const replay = start.replay;
    this.#replay =
      replay === undefined
        ? undefined
        : {
            journal: replay.journal,
            timers: replay.timers,
            fetches: replay.fetches,
            loads: replay.loads,
            answers: new Map(replay.answers.map((answer) => [answer.sequence, answer])),
            keys,
          };
    this.#order = replay ? settlementOrder(replay.journal, replay.timers, replay.fetches, replay.loads) : [];
    this.#timerBase = (replay?.timers ?? []).filter((timer) => timer.settled !== undefined).length;
    this.#keptEntries = (replay?.journal.length ?? 0) + (replay?.fetches.length ?? 0);
    this.#keptChars = replay === undefined ? 0 : replayedChars(replay);
    this.#live = replay === undefined;
    this.stopped = new Promise((resolve) => {
      this.#resolveStop = resolve;
    });
  }

  /** Why the run stopped, once it did. */
  get stop(): DurableStop | undefined {
    return this.#stop;
  }

  /** True until a resume has served its whole journal. */
  get replaying(): boolean {
    return !this.#live;
  }

  /**
   * Every call the run made, with their settlements in the order the isolate observed them. A
   * settlement sent into the isolate whose sequence has not come back (the isolate was busy, or
   * the run stopped first) is journaled after the observed ones, in the order it was sent: a
   * resume delivers it there, which is an order the run could have observed it in.
   */
  get journal(): readonly JournalEntry[] {
    const entries = this.#calls.asked;
    if (this.#sealed) return entries;
    this.#sealed = true;
    this.#answersClosed = true;
    for (const entry of entries) {
      // Its function was still running when the run stopped: whether it did its work is unknown.
      if (entry?.performing === true && entry.settled === undefined) entry.unknown = true;
    }
    // Orders continue after the last one observed, whatever it settled: a call, a timer or a fetch.
    let order = Math.max(
      this.#calls.lastOrder(),
      this.#timers.lastOrder(),
      this.#fetches.lastOrder(),
      this.#loads.lastOrder(),
    );
    order = this.#calls.journalUnobserved(order, ({ time, frame }, next) => ({ order: next, time, frame }));
    // Fetch answers handed over but not observed, in the order answered; then the requests still
    // in flight, as lost connections: a resume delivers each there and never sends it again.
    const time = this.#lastTime;
    order = this.#fetches.journalUnobserved(order, ({ frame, body }, next) => ({
      order: next,
      time,
      frame,
      ...(body ? { body } : {}),
    }));
    // Module loads answered but not observed; a load not answered yet is loaded again on resume.
    order = this.#loads.journalUnobserved(order, (_, next) => ({ order: next, time }));
    for (const entry of this.#fetches.asked) {
      if (entry.settled === undefined) entry.settled = { order: ++order, time, frame: LOST_FETCH_FRAME };
    }
    return entries;
  }

  /** Whether the bodies the run's fetches read are past what one journal may hold. */
  get #bodiesTooLarge(): boolean {
    return this.#bodyBytes > FETCH_BODY_JOURNAL_LIMIT;
  }

  /** Why the journal cannot be sealed, once it cannot: what a pause then ends with. */
  get unsealable(): Unsealable | undefined {
    if (this.#bodiesTooLarge)
      return { code: 'TOKEN_TOO_LARGE', message: fetchBodiesTooLargeMessage(FETCH_BODY_JOURNAL_LIMIT) };
    if (this.#overflow === 'text') return { code: 'TOKEN_TOO_LARGE', message: journalTooLargeMessage() };
    if (this.#overflow === 'entries')
      return { code: 'JOURNAL_TOO_LONG', message: journalPastMostMessage(this.#keptEntries) };
    return undefined;
  }

  /**
   * Counts an entry (`entries` 1 for a call or a fetch request) or an answer the journal keeps
   * live, with `chars` of text; past what a token can hold, the journal is let go.
   */
  #keep(chars: number, entries = 0): void {
    if (!this.#live) return;
    this.#keptEntries += entries;
    if (this.#overflow !== undefined) return;
    this.#keptChars += chars + ENTRY_CHARS;
    if (this.#keptChars > MAX_TOKEN_SIZE) this.#overflow = 'text';
    else if (this.#keptEntries > MAX_JOURNAL_LENGTH) this.#overflow = 'entries';
    else return;
    this.#calls.forget();
    this.#timers.forget();
    this.#fetches.forget();
    this.#loads.forget();
  }

  /** A paused run's journal and delays, with the lines it wrote since it (re)started, for sealing. */
  paused(written: number): PausedJournal {
    // Journal entries only: a live entry also says whether its call is running, which is the session's.
    const journal = this.journal.map(({ provider, tool, args, settled, unknown }) => ({
      provider,
      tool,
      args,
      ...(settled !== undefined ? { settled } : {}),
      ...(unknown === true ? { unknown } : {}),
    }));
    const timers = this.timers.map(({ ms, settled }) => (settled === undefined ? { ms } : { ms, settled }));
    const fetches = this.#fetches.asked.map(({ request, settled }) =>
      settled ? { request, settled } : { request },
    );
    const loads = this.#loads.asked.map(({ settled }) => (settled ? { settled } : {}));
    return { journal, timers, fetches, loads, written };
  }

  /** Every delay the program asked for, with the expiries the isolate observed. */
  get timers(): readonly TimerEntry[] {
    return this.#timers.asked;
  }

  /**
   * The program asked for a delay of `ms`; `real` waits for it on the host. Live, the host's
   * timer runs; in a replay, a delay the journal saw expire is answered at its turn with its
   * journaled count, and one it did not see expire waits until the run is live.
   */
  delay(ms: number, real: () => Promise<number>): Promise<number> {
    const entry: LiveTimer = { ms };
    const index = this.#timers.ask(entry);
    this.#keep(0);
    if (this.#stop !== undefined) return new Promise(() => {});
    if (this.#live) return this.#startTimer(entry, real);
    const recorded = (this.#replay as Replay).timers[index];
    if (recorded !== undefined && recorded.ms !== ms) {
      this.#halt({ kind: 'diverged', message: divergedTimerMessage(index + 1) });
      return new Promise(() => {});
    }
    if (recorded?.settled === undefined) {
      // Delays the paused run never saw expire start when the run is live, with their whole delay.
      return this.#timers.whenLive(() => this.#startTimer(entry, real));
    }
    const turn = this.#timers.turn(index);
    this.#pump();
    return turn;
  }

  /** The isolate observed a timer's expiry under `sequence`: journaled; answers the time its clock reads. */
  timerObserved(count: number, sequence: number): number {
    const expected = this.#timers.takeExpected();
    if (expected !== undefined)
      return this.#replayObserved(expected, sequence, count === expected.settled.count);
    const time = this.#clockTime();
    const started = this.#timers.takeAnswered(count);
    // Journaled until the journal is read, as a call's settlement is: the isolate observed it and
    // ran its callback, whose console lines count among the lines the resume skips, and a later
    // settlement's order counts it.
    if (started !== undefined && !this.#sealed) started.entry.settled = { order: sequence, time, count };
    return time;
  }

  #startTimer(entry: LiveTimer, real: () => Promise<number>): Promise<number> {
    return real().then((expired) => {
      const count = expired + this.#timerBase;
      this.#timers.answered(count, entry, count);
      return count;
    });
  }

  /**
   * The program's fetch sent a request (`request` its hash, `id` the runtime's number for it);
   * `perform` sends it from the host. Live, it is sent and its answer journaled; in a replay, a
   * request the journal holds is answered at its turn from the journal (another request there
   * diverges), and one it does not hold is sent when the run goes live.
   */
  fetch(id: number, request: string, perform: () => Promise<FetchAnswer>): Promise<FetchAnswer> {
    const entry: LiveFetch = { request };
    const index = this.#fetches.ask(entry, id);
    this.#keep(request.length, 1);
    if (this.#stop !== undefined) return new Promise(() => {});
    if (this.#live) return this.#performFetch(id, entry, perform);
    const recorded = (this.#replay as Replay).fetches[index];
    if (recorded?.settled === undefined) {
      // Requests the paused run never sent go out when the run is live.
      return this.#fetches.whenLive(() => this.#performFetch(id, entry, perform));
    }
    if (recorded.request !== request) {
      this.#halt({ kind: 'diverged', message: divergedFetchMessage(index + 1) });
      return new Promise(() => {});
    }
    const turn = this.#fetches.turn(index);
    this.#pump();
    return turn;
  }

  /** The isolate observed the answer of request `id` under `sequence`: journaled; answers the time its clock reads. */
  fetchObserved(id: number, sequence: number): number {
    return this.#answerObserved(this.#fetches, id, sequence, ({ frame, body }, time) => ({
      order: sequence,
      time,
      frame,
      ...(body ? { body } : {}),
    }));
  }

  #performFetch(id: number, entry: LiveFetch, perform: () => Promise<FetchAnswer>): Promise<FetchAnswer> {
    const performed = perform().then((answer) => {
      if (!this.#answersClosed && this.#stop?.kind !== 'diverged') {
        this.#bodyBytes += answer.body?.byteLength ?? 0;
        this.#keep(answer.frame.length);
        // Past the bound the run goes on, but keeps no more bytes: its pause cannot be sealed.
        this.#fetches.answered(
          id,
          entry,
          this.#bodiesTooLarge ? { frame: answer.frame, body: null } : answer,
        );
      }
      return answer;
    });
    const tracked = performed.then(() => {});
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
    return performed;
  }

  /**
   * import() asked the host to load a module (`id` the isolate's number for the load); `perform`
   * loads it. Live and in a replay alike the module is loaded, since the load builds it inside the
   * isolate; in a replay its answer waits for the turn the journal gives it, or, when the journal
   * never saw it answered, until the run is live.
   */
  load(id: number, perform: () => Promise<string>): Promise<string> {
    const entry: LiveLoad = {};
    const index = this.#loads.ask(entry, id);
    this.#keep(0);
    if (this.#stop !== undefined) return new Promise(() => {});
    const loaded = perform();
    if (this.#live) return loaded.then((text) => this.#loadAnswered(id, entry, text));
    const held = (this.#replay as Replay).loads[index]?.settled === undefined;
    let turn: Promise<void>;
    if (held) turn = new Promise((resolve) => this.#loads.hold(resolve));
    else {
      turn = this.#loads.turn(index);
      this.#pump();
    }
    // A load the journal never saw answered is answered live, and journaled as one.
    return turn.then(() => loaded).then((text) => (held ? this.#loadAnswered(id, entry, text) : text));
  }

  #loadAnswered(id: number, entry: LiveLoad, text: string): string {
    if (!this.#answersClosed && this.#stop?.kind !== 'diverged') this.#loads.answered(id, entry);
    return text;
  }

  /** The isolate observed the answer of load `id` under `sequence`: journaled; answers the time its clock reads. */
  loadObserved(id: number, sequence: number): number {
    return this.#answerObserved(this.#loads, id, sequence, (_, time) => ({ order: sequence, time }));
  }

  /**
   * The isolate observed the answer of `answers`' entry `id` (a fetch's or a load's) under
   * `sequence`. In a replay it must be the one being delivered; live, an answer handed over while
   * the run still journals answers is journaled as `settle` makes it. Answers the time its clock reads.
   */
  #answerObserved<Entry extends { settled?: Settled }, Settled extends Observation, Answer>(
    answers: ObservedAnswers<Entry, Settled, Answer>,
    id: number,
    sequence: number,
    settle: (answer: Answer, time: number) => Settled,
  ): number {
    const expected = answers.takeExpected();
    if (expected !== undefined)
      return this.#replayObserved(expected, sequence, answers.entryOf(id) === expected.entry);
    const time = this.#clockTime();
    const answered = this.#answersClosed ? undefined : answers.takeAnswered(id);
    if (answered !== undefined) answered.entry.settled = settle(answered.answer, time);
    return time;
  }

  /**
   * The isolate observed, under `sequence`, an answer of the kind a replay is delivering
   * (`expected`); `same` says whether it is that answer. It must be observed under its journaled
   * sequence, or the resume diverges. Answers the time the isolate's clock reads.
   */
  #replayObserved<Settled extends Observation>(
    expected: ExpectedAnswer<{ settled?: Settled }, Settled>,
    sequence: number,
    same: boolean,
  ): number {
    this.#delivering = false;
    const { settled } = expected;
    if (!same || sequence !== settled.order) {
      this.#halt({ kind: 'diverged', message: divergedObservationMessage(sequence) });
    } else {
      expected.entry.settled = settled;
      this.#lastTime = Math.max(this.#lastTime, settled.time);
      // The isolate is inside its synchronous call: the next delivery waits until it returned.
      setImmediate(() => this.#pump());
    }
    return settled.time;
  }

  /** The time the isolate's clock reads from an answer handed over now. */
  #clockTime(): number {
    // Whole milliseconds, never backwards: the isolate's clock keeps the largest it was given.
    const time = Math.max(this.#lastTime, Math.floor(Date.now()));
    this.#lastTime = time;
    return time;
  }

  /** The run settled while the journal still had calls to serve: it made fewer than the paused run. */
  endedEarly(): void {
    const journal = this.#replay?.journal ?? [];
    this.#halt({ kind: 'diverged', message: divergedCallMessage(this.#made, journal.length) });
  }

  /** A call the isolate made, with its sequence (1, 2, ...). */
  call(sequence: number, provider: string, tool: string, args: string, io: CallIo): void {
    if (this.#stop !== undefined) return;
    const entry: LiveEntry = { provider, tool, args };
    this.#calls.place(sequence - 1, entry);
    if (this.#live) {
      this.#keep(provider.length + tool.length + args.length, 1);
      this.#perform(sequence, entry, io);
      return;
    }
    const journal = (this.#replay as Replay).journal;
    const recorded = journal[sequence - 1];
    if (recorded === undefined) {
      // A call past the journal. The paused run made it too, after it had stopped taking calls
      // (a settlement of the settle moment let the program go on), and a resume may see it before
      // it hears the isolate observed the journal's last settlement. Like a request or a delay the
      // journal does not hold, it is made once the run is live, never before. As many as may be in
      // flight at once, since each holds its arguments until then.
      this.#pastJournalChars += provider.length + tool.length + args.length;
      if (this.#pastJournal.length >= IN_FLIGHT_CALL_LIMIT || this.#pastJournalChars > PAYLOAD_LIMIT) {
        this.#halt({ kind: 'diverged', message: divergedPastJournalMessage(sequence, provider, tool) });
        return;
      }
      this.#pastJournal.push(() => {
        this.#keep(provider.length + tool.length + args.length, 1);
        this.#perform(sequence, entry, io);
      });
      return;
    }
    if (recorded.provider !== provider || recorded.tool !== tool) {
      this.#halt({ kind: 'diverged', message: divergedOrderMessage(sequence, recorded, provider, tool) });
      return;
    }
    if (recorded.args !== args) {
      this.#halt({ kind: 'diverged', message: divergedArgumentsMessage(sequence, provider, tool) });
      return;
    }
    this.#made = Math.max(this.#made, sequence);
    this.#io.set(sequence, io);
    this.#pump();
  }

  /** Waits at most `ms` for the settlements on their way into the isolate to be observed. */
  async settleDeliveries(ms: number): Promise<void> {
    // First the calls still running, then the deliveries their answers (and earlier ones) made.
    await within(ms, [...this.#inFlight]);
    await within(ms, [...this.#deliveries]);
    // A fetch answer still on its way has had its moment: the request is journaled as lost.
    this.#answersClosed = true;
  }

  /**
   * Delivers the journal's settlements in order, each once its call has been made again (or its
   * delay asked for again) and the one before it has been observed: one delivery in flight at a
   * time, so the isolate observes them in the journal's order however isolated-vm schedules them.
   */
  #pump(): void {
    if (this.#delivering || this.#stop !== undefined || this.#live) return;
    if (this.#next < this.#order.length) {
      const observed = this.#order[this.#next] as Observed;
      if (observed.kind !== 'call') {
        if (!this.#deliverTurn(observed)) return;
        this.#next++;
        this.#delivering = true;
        return;
      }
      const { sequence, settled } = observed;
      const io = this.#io.get(sequence);
      if (io === undefined) return;
      this.#next++;
      this.#delivering = true;
      const entry = this.#calls.asked[sequence - 1] as LiveEntry;
      this.#lastTime = Math.max(this.#lastTime, settled.time);
      this.#track(
        Promise.resolve(io.deliver(settled.frame, settled.time)).then((order) => {
          this.#delivering = false;
          if (order !== settled.order) {
            this.#halt({ kind: 'diverged', message: divergedObservationMessage(sequence) });
            return;
          }
          entry.settled = settled;
          this.#pump();
        }),
      );
      return;
    }
    const journal = (this.#replay as Replay).journal;
    if (this.#made === journal.length) this.#goLive();
  }

  /**
   * Hands a timer, fetch or load its journaled answer if it has been asked for again; the isolate
   * says when it observed it (timerObserved, fetchObserved, loadObserved). Answers whether it did.
   */
  #deliverTurn(observed: Exclude<Observed, { kind: 'call' }>): boolean {
    switch (observed.kind) {
      case 'timer':
        return this.#timers.deliverTurn(observed.index, observed.settled, observed.settled.count);
      case 'fetch': {
        const { frame, body } = observed.settled;
        return this.#fetches.deliverTurn(observed.index, observed.settled, { frame, body: body ?? null });
      }
      case 'load':
        // Held until the isolate observes it, which waits for the module to have loaded too.
        return this.#loads.deliverTurn(observed.index, observed.settled);
    }
  }

  /** The journal is served: the pending calls get the caller's answers, and the run is live. */
  #goLive(): void {
    this.#live = true;
    const { journal, answers } = this.#replay as Replay;
    // Taken before any answer is kept: the caller's answers may pass what a token holds, and the
    // journal is let go then (#keep).
    const entries = this.#calls.asked.slice(0, journal.length);
    journal.forEach((recorded, index) => {
      if (recorded.settled !== undefined) return;
      const sequence = index + 1;
      const entry = entries[index] as LiveEntry;
      const io = this.#io.get(sequence) as CallIo;
      const answer = answers.get(sequence) as ReplayAnswer;
      if ('perform' in answer) this.#perform(sequence, entry, io);
      else this.#deliver(sequence, entry, io, answer.frame);
    });
    this.#io.clear();
    for (const perform of this.#pastJournal.splice(0)) perform();
    this.#timers.releaseHeld();
    this.#fetches.releaseHeld();
    this.#loads.releaseHeld();
  }

  #perform(sequence: number, entry: LiveEntry, io: CallIo): void {
    const keys = this.#replay?.keys;
    const context: DurableCallContext = {
      sequence,
      idempotencyKey: keys?.idempotencyKey(sequence),
      tokenId: keys?.tokenId,
    };
    entry.performing = true;
    const performed = performInContext(context, io.perform).then(({ value, paused }) => {
      entry.performing = false;
      if (paused !== undefined) this.#halt({ kind: 'paused', request: paused });
      // A call that settles while a paused run's isolate still exists (the settle moment) is
      // delivered and journaled; one that settles after it is an outcome unknown (journal getter).
      else if (this.#stop?.kind !== 'diverged' && !this.#sealed) this.#deliver(sequence, entry, io, value);
    });
    this.#inFlight.add(performed);
    void performed.finally(() => this.#inFlight.delete(performed));
  }

  #deliver(sequence: number, entry: LiveEntry, io: CallIo, frame: DispatchFrame): void {
    const time = this.#clockTime();
    this.#keep(frame[1].length);
    this.#calls.answered(sequence, entry, { time, frame });
    this.#track(
      Promise.resolve(io.deliver(frame, time)).then((order) => {
        this.#calls.takeAnswered(sequence);
        if (typeof order === 'number') entry.settled = { order, time, frame };
      }),
    );
  }

  #track(delivery: Promise<void>): void {
    const tracked = delivery.catch(() => {}).finally(() => this.#deliveries.delete(tracked));
    this.#deliveries.add(tracked);
  }

  #halt(stop: DurableStop): void {
    if (this.#stop !== undefined) return;
    this.#stop = stop;
    this.#resolveStop(stop);
  }
}
