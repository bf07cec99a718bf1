/**
 * Claiming a token once. A token is a bearer credential for its paused run until it expires; a
 * claim store remembers which tokens have resumed, so a second resume of one token is refused
 * (TOKEN_REPLAYED) instead of running the rest of the program twice.
 *
 * Without a store a resume is at-least-once: whoever holds the token can resume it again until it
 * expires, and every call the resume performs live can happen again. The mitigation is the
 * idempotency key a resume hands each call it performs (token.ts, idempotencyKey), the same for
 * the same token and call on every retry, which a tool passes to the service it calls so the
 * service does the work once. MemoryClaimStore serves one process; servers behind a balancer
 * need a store they share, or they are back to at-least-once (docs/durable.md, "Replay").
 */

export interface ClaimStore {
  /**
   * Records the token as used and answers true, or answers false when it was recorded before.
   * Must be atomic across everything sharing the store. The record must be kept until `expiresAt`
   * (ms since the epoch) plus the clock skew between the servers sharing it; after that the token
   * no longer opens anyway. A rejection refuses the resume (CLAIM_UNAVAILABLE): the store could
   * not say, so the run is not resumed.
   */
  claim(tokenId: string, expiresAt: number): Promise<boolean>;
}

/** How many claims MemoryClaimStore holds unless told otherwise. */
export const DEFAULT_CLAIM_CAPACITY = 100_000;

export interface MemoryClaimStoreOptions {
  /** Claims held at once (default 100000); expired ones are dropped to make room. */
  readonly capacity?: number;
  /** The clock, in ms since the epoch (default Date.now); tests pass their own. */
  readonly now?: () => number;
}

export const CLAIM_STORE_FULL_MESSAGE =
  'The in-memory claim store is full of claims that have not expired: it refuses new claims rather than forget one, so no token can be replayed.';

/**
 * Claims held in this process's memory. When it is full it drops the claims that have expired;
 * when none has, it refuses the claim (the resume fails with CLAIM_UNAVAILABLE) rather than forget
 * a live one, which would let that token resume again.
 */
export class MemoryClaimStore implements ClaimStore {
  readonly #claims = new Map<string, number>();
  readonly #capacity: number;
  readonly #now: () => number;
  /** At most the earliest expiry of the claims held: before it, a sweep would free nothing. */
  #nextExpiry = Number.POSITIVE_INFINITY;

  constructor(options: MemoryClaimStoreOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_CLAIM_CAPACITY;
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError('MemoryClaimStore capacity must be a whole number of claims from 1.');
    }
    this.#capacity = capacity;
    this.#now = options.now ?? Date.now;
  }

  /** How many claims it holds now, expired ones not yet dropped included. */
  get size(): number {
    return this.#claims.size;
  }

  async claim(tokenId: string, expiresAt: number): Promise<boolean> {
    const now = this.#now();
    // Held until swept, and a claim is swept only once it has expired: a token is never claimed twice.
    if (this.#claims.has(tokenId)) return false;
    if (this.#claims.size >= this.#capacity) {
      this.#sweep(now);
      if (this.#claims.size >= this.#capacity) throw new Error(CLAIM_STORE_FULL_MESSAGE);
    }
    this.#claims.set(tokenId, expiresAt);
    this.#nextExpiry = Math.min(this.#nextExpiry, expiresAt);
    return true;
  }

  /**
   * Drops the expired claims. It walks every claim, so it runs only when the store is full and
   * some claim has expired since the last walk: a store full of live claims refuses in O(1).
   */
  #sweep(now: number): void {
    if (now < this.#nextExpiry) return;
    let next = Number.POSITIVE_INFINITY;
    for (const [tokenId, expiresAt] of this.#claims) {
      if (expiresAt <= now) this.#claims.delete(tokenId);
      else next = Math.min(next, expiresAt);
    }
    this.#nextExpiry = next;
  }
}
