/**
 * The host-side byte budget of response bodies toward one isolate. A body the host holds (being
 * read and decoded, or answered and not yet taken into the isolate) is outside the isolate's
 * memory limit, so without a bound twelve concurrent 8 MiB bodies, or one small gzip body that
 * inflates a thousandfold, sit in the child's own heap. The budget is the isolate's memory limit
 * in bytes, never more than PAYLOAD_LIMIT: a program could not hold more in its own memory anyway.
 * Bytes are counted as they decode, so a decompression bomb stops at the budget, not at its end.
 */
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';

/** The text a response fails with when its body would pass the budget. */
export function bodyBudgetMessage(held: number, budget: number): string {
  return `The response bodies held for this execution would take ${held} bytes, past its ${budget}-byte budget (its memory limit, at most the payload limit).`;
}

/** The budget for an isolate whose memory limit is `memoryLimit` MB. */
export function bodyBudgetFor(memoryLimit: number): number {
  return Math.min(memoryLimit * 2 ** 20, PAYLOAD_LIMIT);
}

/** One body's share of the budget: counted as its bytes arrive, given back once it is taken or dropped. */
export interface BodyTicket {
  /** Counts `bytes` more; throws a TypeError naming the budget when they would not fit. */
  add(bytes: number): void;
  /** Gives back everything this ticket counted. */
  release(): void;
}

export class BodyBudget {
  readonly limit: number;
  #held = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  get held(): number {
    return this.#held;
  }

  ticket(): BodyTicket {
    let counted = 0;
    return {
      add: (bytes) => {
        if (this.#held + bytes > this.limit)
          throw new TypeError(bodyBudgetMessage(this.#held + bytes, this.limit));
        this.#held += bytes;
        counted += bytes;
      },
      release: () => {
        this.#held -= counted;
        counted = 0;
      },
    };
  }
}

/** A ticket that counts nothing: native fetch called outside an isolate (tests, tools). */
export const UNMETERED: BodyTicket = { add: () => {}, release: () => {} };

/** The size of the blocks a native body is gathered in. */
const BLOCK_SIZE = 16 * 1024;

/**
 * A body as the host gathers it while it arrives: each chunk copied into blocks of BLOCK_SIZE, so
 * the host holds what its ticket counted and at most one block more. Node hands a body over as a
 * Buffer object per chunk, each a view that keeps its whole read buffer alive: held as they came,
 * a body of one-byte chunks cost the host about 420 bytes per byte counted (2 MB of body, 900 MB
 * resident), and one far under the budget ended the process.
 */
export class BodyBlocks {
  readonly #blocks: Uint8Array[] = [];
  #used = BLOCK_SIZE;
  #length = 0;

  push(chunk: Uint8Array): void {
    for (let offset = 0; offset < chunk.byteLength; ) {
      if (this.#used === BLOCK_SIZE) {
        this.#blocks.push(new Uint8Array(BLOCK_SIZE));
        this.#used = 0;
      }
      const count = Math.min(BLOCK_SIZE - this.#used, chunk.byteLength - offset);
      (this.#blocks.at(-1) as Uint8Array).set(chunk.subarray(offset, offset + count), this.#used);
      this.#used += count;
      offset += count;
    }
    this.#length += chunk.byteLength;
  }

  /**
   * The body in one buffer of exactly its size. Never a view of a larger buffer: isolated-vm's
   * ExternalCopy of a view copies the view's whole ArrayBuffer into the isolate.
   */
  bytes(): Uint8Array {
    const body = new Uint8Array(this.#length);
    let offset = 0;
    for (const block of this.#blocks) {
      const count = Math.min(BLOCK_SIZE, this.#length - offset);
      body.set(count === BLOCK_SIZE ? block : block.subarray(0, count), offset);
      offset += count;
    }
    return body;
  }
}
