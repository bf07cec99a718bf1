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
import type { DispatchFrame } from '@supolka/codemode-protocol/wire';
import { FETCH_BODY_JOURNAL_LIMIT, LOST_FETCH_FRAME } from './fetch-journal.ts';
import {
  type FetchEntry,
  type FetchSettlement,
  type JournalEntry,
  type LoadEntry,
  type Observed,
  type Settlement,
  settlementOrder,
  type TimerEntry,
  type TimerSettlement,
} from './journal.ts';
import { type DurableCallContext, type PauseRequest, performInContext } from './pause.ts';
import { type Seed, SeededRandom } from './random.ts';
import {
  divergedArgumentsMessage,
  divergedCallMessage,
  divergedExtraCallMessage,
  divergedFetchMessage,
  divergedObservationMessage,
  divergedOrderMessage,
  divergedTimerMessage,
} from './replay-texts.ts';
import type { DurableStart, PausedJournal, ReplayAnswer, ResumeKeys } from './start.ts';

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

/** A delay the program asked for during a replay that the journal did not see expire. */
interface HeldTimer {
  readonly entry: LiveTimer;
  readonly real: () => Promise<number>;
  readonly resolve: (count: number) => void;
}

interface LiveFetch {
  readonly request: string;
  /** The host's answer, once it came while the run still journals answers. */
  answered?: FetchAnswer;
  settled?: FetchSettlement;
}

/** A request the program sent during a replay that the journal does not hold, sent when the run goes live. */
interface HeldFetch {
  readonly entry: LiveFetch;
  readonly perform: () => Promise<FetchAnswer>;
  readonly resolve: (answer: FetchAnswer) => void;
}

interface LiveLoad {
  /** Whether its answer reached the isolate, while the run still journals answers. */
  answered?: boolean;
  settled?: { order: number; time: number };
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
  readonly #entries: LiveEntry[] = [];
  readonly #deliveries = new Set<Promise<void>>();
  /** Calls whose caller's function is still running. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Set once the journal was read for sealing: nothing is delivered into the run after that. */
  #sealed = false;
  /** Live settlements sent into the isolate whose observed sequence has not come back, in the order sent. */
  readonly #outstanding: { entry: LiveEntry; time: number; frame: DispatchFrame }[] = [];
  #lastTime: number;
  // Replay only.
  readonly #replay: Replay | undefined;
  readonly #order: Observed[];
  readonly #io = new Map<number, CallIo>();
  readonly #timers: LiveTimer[] = [];
  /** Replay: delays asked for, by index, whose journaled expiry is still to be delivered. */
  readonly #timerTurns = new Map<number, (count: number) => void>();
  /** Replay: delays the journal did not see expire, started when the run goes live. */
  readonly #heldTimers: HeldTimer[] = [];
  /** The timer expiry being delivered in a replay, until the isolate observes it. */
  #expecting: { readonly entry: LiveTimer; readonly settled: TimerSettlement } | undefined;
  /** Live: started delays by the expiry count the isolate knows them by. */
  readonly #liveTimers = new Map<number, LiveTimer>();
  /** Expiries the journal delivered: the host's counts continue after them. */
  readonly #timerBase: number;
  /** Every request fetch sent, in the order sent, and the same entries by the runtime's request id. */
  readonly #fetches: LiveFetch[] = [];
  readonly #fetchIds = new Map<number, LiveFetch>();
  /** Live fetch answers handed to the isolate whose observed sequence has not come back, in the order answered. */
  readonly #outstandingFetches: LiveFetch[] = [];
  /** Replay: requests sent again, by index, whose journaled answer is still to be delivered. */
  readonly #fetchTurns = new Map<number, (answer: FetchAnswer) => void>();
  /** Replay: requests the journal does not hold, sent when the run goes live. */
  readonly #heldFetches: HeldFetch[] = [];
  /** The fetch answer being delivered in a replay, until the isolate observes it. */
  #expectingFetch: { readonly entry: LiveFetch; readonly settled: FetchSettlement } | undefined;
  /** Set once the settle moment after a pause is over: later fetch and load answers are not journaled. */
  #answersClosed = false;
  /** Body bytes the journal holds; past FETCH_BODY_JOURNAL_LIMIT it keeps no more. */
  #bodyBytes = 0;
  /** Every module load import() asked for, in the order asked, and the same entries by the isolate's number. */
  readonly #loads: LiveLoad[] = [];
  readonly #loadIds = new Map<number, LiveLoad>();
  /** Live load answers handed to the isolate whose observed sequence has not come back, in the order answered. */
  readonly #outstandingLoads: LiveLoad[] = [];
  /** Replay: loads asked again, by index, whose answer waits for its journaled turn. */
  readonly #loadTurns = new Map<number, () => void>();
  /** Replay: loads the journal did not see answered, answered when the run goes live. */
  readonly #heldLoads: (() => void)[] = [];
  /** The load answer being delivered in a replay, until the isolate observes it. */
  #expectingLoad: { readonly entry: LiveLoad; readonly settled: { order: number; time: number } } | undefined;
  #next = 0;
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
    if (this.#sealed) return this.#entries;
    this.#sealed = true;
    this.#answersClosed = true;
    for (const entry of this.#entries) {
      // Its function was still running when the run stopped: whether it did its work is unknown.
      if (entry?.performing === true && entry.settled === undefined) entry.unknown = true;
    }
    // Orders continue after the last one observed, whatever it settled: a call, a timer or a fetch.
    let order = 0;
    for (const entry of this.#entries) order = Math.max(order, entry?.settled?.order ?? 0);
    for (const entry of this.#timers) order = Math.max(order, entry.settled?.order ?? 0);
    for (const entry of this.#fetches) order = Math.max(order, entry.settled?.order ?? 0);
    for (const entry of this.#loads) order = Math.max(order, entry.settled?.order ?? 0);
    for (const sent of this.#outstanding) {
      if (sent.entry.settled === undefined)
        sent.entry.settled = { order: ++order, time: sent.time, frame: sent.frame };
    }
    this.#outstanding.length = 0;
    // Fetch answers handed over but not observed, in the order answered; then the requests still
    // in flight, as lost connections: a resume delivers each there and never sends it again.
    for (const entry of this.#outstandingFetches) {
      const { frame, body } = entry.answered as FetchAnswer;
      if (entry.settled === undefined)
        entry.settled = { order: ++order, time: this.#lastTime, frame, ...(body ? { body } : {}) };
    }
    this.#outstandingFetches.length = 0;
    // Module loads answered but not observed; a load not answered yet is loaded again on resume.
    for (const entry of this.#outstandingLoads) {
      if (entry.settled === undefined) entry.settled = { order: ++order, time: this.#lastTime };
    }
    this.#outstandingLoads.length = 0;
    for (const entry of this.#fetches) {
      if (entry.settled === undefined)
        entry.settled = { order: ++order, time: this.#lastTime, frame: LOST_FETCH_FRAME };
    }
    return this.#entries;
  }

  /** Whether the bodies the run's fetches read are past what one journal may hold. */
  get journalTooLarge(): boolean {
    return this.#bodyBytes > FETCH_BODY_JOURNAL_LIMIT;
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
    const fetches = this.#fetches.map(({ request, settled }) =>
      settled ? { request, settled } : { request },
    );
    const loads = this.#loads.map(({ settled }) => (settled ? { settled } : {}));
    return { journal, timers, fetches, loads, written };
  }

  /** Every delay the program asked for, with the expiries the isolate observed. */
  get timers(): readonly TimerEntry[] {
    return this.#timers;
  }

  /**
   * The program asked for a delay of `ms`; `real` waits for it on the host. Live, the host's
   * timer runs; in a replay, a delay the journal saw expire is answered at its turn with its
   * journaled count, and one it did not see expire waits until the run is live.
   */
  delay(ms: number, real: () => Promise<number>): Promise<number> {
    const index = this.#timers.length;
    const entry: LiveTimer = { ms };
    this.#timers.push(entry);
    if (this.#stop !== undefined) return new Promise(() => {});
    if (this.#live) return this.#startTimer(entry, real);
    const recorded = (this.#replay as Replay).timers[index];
    if (recorded !== undefined && recorded.ms !== ms) {
      this.#halt({ kind: 'diverged', message: divergedTimerMessage(index + 1) });
      return new Promise(() => {});
    }
    return new Promise((resolve) => {
      if (recorded?.settled === undefined) {
        this.#heldTimers.push({ entry, real, resolve });
        return;
      }
      this.#timerTurns.set(index, resolve);
      this.#pump();
    });
  }

  /** The isolate observed a timer's expiry under `sequence`: journaled; answers the time its clock reads. */
  timerObserved(count: number, sequence: number): number {
    const expecting = this.#expecting;
    if (expecting !== undefined) {
      this.#expecting = undefined;
      this.#delivering = false;
      const { settled } = expecting;
      if (sequence !== settled.order || count !== settled.count) {
        this.#halt({ kind: 'diverged', message: divergedObservationMessage(sequence) });
      } else {
        expecting.entry.settled = settled;
        this.#lastTime = Math.max(this.#lastTime, settled.time);
        // The isolate is inside its synchronous call: the next delivery waits until it returned.
        setImmediate(() => this.#pump());
      }
      return settled.time;
    }
    const time = Math.max(this.#lastTime, Math.floor(Date.now()));
    this.#lastTime = time;
    const entry = this.#liveTimers.get(count);
    this.#liveTimers.delete(count);
    // Journaled until the journal is read, as a call's settlement is: the isolate observed it and
    // ran its callback, whose console lines count among the lines the resume skips, and a later
    // settlement's order counts it.
    if (entry !== undefined && !this.#sealed) entry.settled = { order: sequence, time, count };
    return time;
  }

  #startTimer(entry: LiveTimer, real: () => Promise<number>): Promise<number> {
    return real().then((expired) => {
      const count = expired + this.#timerBase;
      this.#liveTimers.set(count, entry);
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
    const index = this.#fetches.length;
    const entry: LiveFetch = { request };
    this.#fetches.push(entry);
    this.#fetchIds.set(id, entry);
    if (this.#stop !== undefined) return new Promise(() => {});
    if (this.#live) return this.#performFetch(entry, perform);
    const recorded = (this.#replay as Replay).fetches[index];
    if (recorded?.settled === undefined) {
      return new Promise((resolve) => this.#heldFetches.push({ entry, perform, resolve }));
    }
    if (recorded.request !== request) {
      this.#halt({ kind: 'diverged', message: divergedFetchMessage(index + 1) });
      return new Promise(() => {});
    }
    return new Promise((resolve) => {
      this.#fetchTurns.set(index, resolve);
      this.#pump();
    });
  }

  /** The isolate observed the answer of request `id` under `sequence`: journaled; answers the time its clock reads. */
  fetchObserved(id: number, sequence: number): number {
    const entry = this.#fetchIds.get(id);
    const expecting = this.#expectingFetch;
    if (expecting !== undefined) {
      this.#expectingFetch = undefined;
      this.#delivering = false;
      const { settled } = expecting;
      if (entry !== expecting.entry || sequence !== settled.order) {
        this.#halt({ kind: 'diverged', message: divergedObservationMessage(sequence) });
      } else {
        expecting.entry.settled = settled;
        this.#lastTime = Math.max(this.#lastTime, settled.time);
        // The isolate is inside its synchronous call: the next delivery waits until it returned.
        setImmediate(() => this.#pump());
      }
      return settled.time;
    }
    const time = Math.max(this.#lastTime, Math.floor(Date.now()));
    this.#lastTime = time;
    const answered = entry?.answered;
    if (
      entry !== undefined &&
      answered !== undefined &&
      entry.settled === undefined &&
      !this.#answersClosed
    ) {
      entry.settled = {
        order: sequence,
        time,
        frame: answered.frame,
        ...(answered.body ? { body: answered.body } : {}),
      };
      const index = this.#outstandingFetches.indexOf(entry);
      if (index !== -1) this.#outstandingFetches.splice(index, 1);
    }
    return time;
  }

  #performFetch(entry: LiveFetch, perform: () => Promise<FetchAnswer>): Promise<FetchAnswer> {
    const performed = perform().then((answer) => {
      if (!this.#answersClosed && this.#stop?.kind !== 'diverged') {
        this.#bodyBytes += answer.body?.byteLength ?? 0;
        // Past the bound the run goes on, but keeps no more bytes: its pause cannot be sealed.
        entry.answered = this.journalTooLarge ? { frame: answer.frame, body: null } : answer;
        this.#outstandingFetches.push(entry);
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
    const index = this.#loads.length;
    const entry: LiveLoad = {};
    this.#loads.push(entry);
    this.#loadIds.set(id, entry);
    if (this.#stop !== undefined) return new Promise(() => {});
    const loaded = perform();
    if (this.#live) return loaded.then((text) => this.#loadAnswered(entry, text));
    const held = (this.#replay as Replay).loads[index]?.settled === undefined;
    const turn = new Promise<void>((resolve) => {
      if (held) this.#heldLoads.push(resolve);
      else {
        this.#loadTurns.set(index, resolve);
        this.#pump();
      }
    });
    // A load the journal never saw answered is answered live, and journaled as one.
    return turn.then(() => loaded).then((text) => (held ? this.#loadAnswered(entry, text) : text));
  }

  #loadAnswered(entry: LiveLoad, text: string): string {
    if (!this.#answersClosed && this.#stop?.kind !== 'diverged') {
      entry.answered = true;
      this.#outstandingLoads.push(entry);
    }
    return text;
  }

  /** The isolate observed the answer of load `id` under `sequence`: journaled; answers the time its clock reads. */
  loadObserved(id: number, sequence: number): number {
    const entry = this.#loadIds.get(id);
    const expecting = this.#expectingLoad;
    if (expecting !== undefined) {
      this.#expectingLoad = undefined;
      this.#delivering = false;
      const { settled } = expecting;
      if (entry !== expecting.entry || sequence !== settled.order) {
        this.#halt({ kind: 'diverged', message: divergedObservationMessage(sequence) });
      } else {
        expecting.entry.settled = settled;
        this.#lastTime = Math.max(this.#lastTime, settled.time);
        setImmediate(() => this.#pump());
      }
      return settled.time;
    }
    const time = Math.max(this.#lastTime, Math.floor(Date.now()));
    this.#lastTime = time;
    if (entry?.answered === true && entry.settled === undefined && !this.#answersClosed) {
      entry.settled = { order: sequence, time };
      const index = this.#outstandingLoads.indexOf(entry);
      if (index !== -1) this.#outstandingLoads.splice(index, 1);
    }
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
    this.#entries[sequence - 1] = entry;
    if (this.#live) {
      this.#perform(sequence, entry, io);
      return;
    }
    const journal = (this.#replay as Replay).journal;
    const recorded = journal[sequence - 1];
    if (recorded === undefined) {
      this.#halt({
        kind: 'diverged',
        message: divergedExtraCallMessage(sequence, provider, tool, journal.length),
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
      if (observed.kind === 'load') {
        const resolve = this.#loadTurns.get(observed.index);
        if (resolve === undefined) return;
        this.#loadTurns.delete(observed.index);
        this.#next++;
        // Held until the isolate observes it, which waits for the module to have loaded too.
        this.#delivering = true;
        this.#expectingLoad = { entry: this.#loads[observed.index] as LiveLoad, settled: observed.settled };
        resolve();
        return;
      }
      if (observed.kind === 'fetch') {
        const resolve = this.#fetchTurns.get(observed.index);
        if (resolve === undefined) return;
        this.#fetchTurns.delete(observed.index);
        this.#next++;
        this.#delivering = true;
        this.#expectingFetch = {
          entry: this.#fetches[observed.index] as LiveFetch,
          settled: observed.settled,
        };
        resolve({ frame: observed.settled.frame, body: observed.settled.body ?? null });
        return;
      }
      if (observed.kind === 'timer') {
        const resolve = this.#timerTurns.get(observed.index);
        if (resolve === undefined) return;
        this.#timerTurns.delete(observed.index);
        this.#next++;
        this.#delivering = true;
        this.#expecting = { entry: this.#timers[observed.index] as LiveTimer, settled: observed.settled };
        resolve(observed.settled.count);
        return;
      }
      const { sequence, settled } = observed;
      const io = this.#io.get(sequence);
      if (io === undefined) return;
      this.#next++;
      this.#delivering = true;
      const entry = this.#entries[sequence - 1] as LiveEntry;
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

  /** The journal is served: the pending calls get the caller's answers, and the run is live. */
  #goLive(): void {
    this.#live = true;
    const { journal, answers } = this.#replay as Replay;
    journal.forEach((recorded, index) => {
      if (recorded.settled !== undefined) return;
      const sequence = index + 1;
      const entry = this.#entries[index] as LiveEntry;
      const io = this.#io.get(sequence) as CallIo;
      const answer = answers.get(sequence) as ReplayAnswer;
      if ('perform' in answer) this.#perform(sequence, entry, io);
      else this.#deliver(entry, io, answer.frame);
    });
    this.#io.clear();
    // Delays the paused run never saw expire start now, with their whole delay.
    for (const held of this.#heldTimers.splice(0))
      void this.#startTimer(held.entry, held.real).then(held.resolve);
    // Requests the paused run never sent go out now.
    for (const held of this.#heldFetches.splice(0))
      void this.#performFetch(held.entry, held.perform).then(held.resolve);
    for (const resolve of this.#heldLoads.splice(0)) resolve();
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
      else if (this.#stop?.kind !== 'diverged' && !this.#sealed) this.#deliver(entry, io, value);
    });
    this.#inFlight.add(performed);
    void performed.finally(() => this.#inFlight.delete(performed));
  }

  #deliver(entry: LiveEntry, io: CallIo, frame: DispatchFrame): void {
    // Whole milliseconds, never backwards: the isolate's clock keeps the largest it was given.
    const time = Math.max(this.#lastTime, Math.floor(Date.now()));
    this.#lastTime = time;
    const sent = { entry, time, frame };
    this.#outstanding.push(sent);
    this.#track(
      Promise.resolve(io.deliver(frame, time)).then((order) => {
        const index = this.#outstanding.indexOf(sent);
        if (index !== -1) this.#outstanding.splice(index, 1);
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
