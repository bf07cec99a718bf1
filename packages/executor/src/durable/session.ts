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
import {
  type JournalEntry,
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

/** Why the run stopped before its program settled. */
export type DurableStop =
  | { readonly kind: 'paused'; readonly request: PauseRequest }
  | { readonly kind: 'diverged'; readonly message: string };

/** A resume's replay: the opened token's journal and the caller's answers to its pending calls. */
interface Replay {
  readonly journal: readonly JournalEntry[];
  readonly timers: readonly TimerEntry[];
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
            answers: new Map(replay.answers.map((answer) => [answer.sequence, answer])),
            keys,
          };
    this.#order = replay ? settlementOrder(replay.journal, replay.timers) : [];
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
    this.#sealed = true;
    for (const entry of this.#entries) {
      // Its function was still running when the run stopped: whether it did its work is unknown.
      if (entry?.performing === true && entry.settled === undefined) entry.unknown = true;
    }
    let order = 0;
    for (const entry of this.#entries) order = Math.max(order, entry?.settled?.order ?? 0);
    for (const sent of this.#outstanding) {
      if (sent.entry.settled === undefined)
        sent.entry.settled = { order: ++order, time: sent.time, frame: sent.frame };
    }
    this.#outstanding.length = 0;
    return this.#entries;
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
    return { journal, timers, written };
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
    if (entry !== undefined && this.#stop === undefined) entry.settled = { order: sequence, time, count };
    return time;
  }

  #startTimer(entry: LiveTimer, real: () => Promise<number>): Promise<number> {
    return real().then((expired) => {
      const count = expired + this.#timerBase;
      this.#liveTimers.set(count, entry);
      return count;
    });
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
