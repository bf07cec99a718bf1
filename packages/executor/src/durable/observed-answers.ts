/**
 * The answers of one kind (tool calls, timer expiries, fetch answers or module loads) that a
 * durable run journals under the sequence the isolate observed them by (docs/durable.md, "The
 * model"). The session (session.ts) holds one of these a kind, so that every kind is journaled
 * live and served in a replay the same way; it keeps only what differs between the kinds (a fetch's
 * body, a load held until its module loaded, a timer's count, a call's delivery) and what they share
 * (one delivery at a time, the clock, the stop).
 *
 * Live, an answer handed to the isolate is held here until the isolate says the sequence it
 * observed it under; one still unobserved when the journal is read is journaled after the observed
 * ones, in the order answered. In a replay, each one asked again waits for the turn the journal
 * gives its answer, or, when the journal never saw it answered, until the run goes live; the answer
 * being delivered is remembered until the isolate observes it.
 */

/** A journaled answer: the sequence the isolate observed it under, and the clock's time from then on. */
export interface Observation {
  readonly order: number;
  readonly time: number;
}

/** An answer a replay is delivering, with the entry it settles. */
export interface ExpectedAnswer<Entry, Settled> {
  readonly entry: Entry;
  readonly settled: Settled;
}

/**
 * One kind's entries and answers. `Entry` is its journal entry being built, settled once observed;
 * `Answer` what the isolate is handed (and, live, what of it the journal keeps until observed).
 */
export class ObservedAnswers<Entry extends { settled?: Settled }, Settled extends Observation, Answer> {
  /** Every one the program asked for, in the order asked: this kind's list in the journal. */
  readonly asked: Entry[] = [];
  /** The same entries by the number the isolate knows them by when it asks. */
  readonly #ids = new Map<number, Entry>();
  /** Live answers handed to the isolate whose observed sequence has not come back, by number, in the order answered. */
  readonly #unobserved = new Map<number, { readonly entry: Entry; readonly answer: Answer }>();
  /** Replay: asked again, by index, whose journaled answer is still to be delivered. */
  readonly #turns = new Map<number, (answer: Answer) => void>();
  /** Replay: ones the journal did not see answered, released when the run goes live. */
  readonly #held: (() => void)[] = [];
  /** The answer being delivered in a replay, until the isolate observes it. */
  #expected: ExpectedAnswer<Entry, Settled> | undefined;
  /** False once the run's journal passed what a token can hold (`forget`). */
  #keeping = true;

  /** Takes a new entry, under the isolate's number `id` when it has one; answers its index (-1 once forgetting). */
  ask(entry: Entry, id?: number): number {
    if (!this.#keeping) return -1;
    this.asked.push(entry);
    if (id !== undefined) this.#ids.set(id, entry);
    return this.asked.length - 1;
  }

  /** Takes the entry at `index`, placed by a number of the isolate's (a call's sequence) rather than in the order asked. */
  place(index: number, entry: Entry): void {
    if (this.#keeping) this.asked[index] = entry;
  }

  /**
   * Live: the journal passed what a token can hold, so no pause can be sealed: the entries kept are
   * let go and no more are kept, since a program that goes on would otherwise make the host hold
   * every argument and answer it ever exchanged, a memory no isolate limit sees. Answers still on
   * their way are held until observed, as before.
   */
  forget(): void {
    this.#keeping = false;
    this.asked.length = 0;
    this.#ids.clear();
  }

  /** The entry the isolate asked for under `id`. */
  entryOf(id: number): Entry | undefined {
    return this.#ids.get(id);
  }

  /** Live: `answer` was handed to the isolate for `entry`; the isolate reports observing it by `id`. */
  answered(id: number, entry: Entry, answer: Answer): void {
    this.#unobserved.set(id, { entry, answer });
  }

  /** Live: the answer under `id` is no longer on its way (the isolate observed it); answers it. */
  takeAnswered(id: number): { readonly entry: Entry; readonly answer: Answer } | undefined {
    const answered = this.#unobserved.get(id);
    this.#unobserved.delete(id);
    return answered;
  }

  /** The largest sequence an answer of this kind was observed under; 0 for none. */
  lastOrder(): number {
    let order = 0;
    // Calls are placed by their sequence, so the list may have holes.
    for (const entry of this.asked) order = Math.max(order, entry?.settled?.order ?? 0);
    return order;
  }

  /**
   * Journals the answers handed over but not observed, in the order answered, with the orders
   * after `order`; answers the last order given. A resume delivers each there, which is an order
   * the run could have observed it in.
   */
  journalUnobserved(order: number, settle: (answer: Answer, order: number) => Settled): number {
    let last = order;
    for (const { entry, answer } of this.#unobserved.values()) {
      if (entry.settled === undefined) entry.settled = settle(answer, ++last);
    }
    this.#unobserved.clear();
    return last;
  }

  /** Replay: the answer for the entry at `index`, handed over at its journaled turn (`deliverTurn`). */
  turn(index: number): Promise<Answer> {
    return new Promise((resolve) => this.#turns.set(index, resolve));
  }

  /** Replay: `release` answers an entry the journal did not see answered, once the run is live. */
  hold(release: () => void): void {
    this.#held.push(release);
  }

  /** Replay: `start` answers an entry the journal did not see answered, once the run is live. */
  whenLive(start: () => Promise<Answer>): Promise<Answer> {
    return new Promise((resolve) => this.hold(() => void start().then(resolve)));
  }

  /** The run is live: every held entry is released, in the order asked. */
  releaseHeld(): void {
    for (const release of this.#held.splice(0)) release();
  }

  /**
   * Replay: hands `answer`, journaled as `settled`, to the entry at `index` if it has been asked
   * for again and waits for its turn, and remembers it until the isolate observes it. Answers
   * whether it did.
   */
  deliverTurn(index: number, settled: Settled, answer: Answer): boolean {
    const resolve = this.#turns.get(index);
    if (resolve === undefined) return false;
    this.#turns.delete(index);
    this.#expected = { entry: this.asked[index] as Entry, settled };
    resolve(answer);
    return true;
  }

  /** Replay: the answer being delivered, forgotten here since the isolate observed one of this kind. */
  takeExpected(): ExpectedAnswer<Entry, Settled> | undefined {
    const expected = this.#expected;
    this.#expected = undefined;
    return expected;
  }
}
