/**
 * A durable run's randomness, derived from its seed. Math.random is seeded inside the isolate
 * (inside/run-support.ts); crypto.getRandomValues and crypto.randomUUID, which the runtime asks
 * the host for, draw here from HMAC-SHA256 of the seed and a counter, so a replay that asks for
 * the same bytes in the same order gets the same bytes without the journal holding any of them.
 * The seed is as secret as the token that carries it: whoever holds a durable key can read it and
 * predict the run's random values (docs/durable.md, "The model").
 */
import { nodeCrypto } from '../sandbox/node-crypto.ts';

export type Seed = readonly [number, number, number, number];

/** A fresh seed: four random 32-bit words, never all zero (xoshiro128** would emit only zeros). */
export function newSeed(): Seed {
  const bytes = nodeCrypto().randomBytes(16);
  const seed: [number, number, number, number] = [
    bytes.readInt32BE(0),
    bytes.readInt32BE(4),
    bytes.readInt32BE(8),
    bytes.readInt32BE(12),
  ];
  if (seed.every((word) => word === 0)) seed[0] = 1;
  return seed;
}

/** The host's random source for one durable run. */
export class SeededRandom {
  readonly #key: Buffer;
  #counter = 0;

  constructor(seed: Seed) {
    const key = Buffer.alloc(16);
    seed.forEach((word, index) => {
      key.writeInt32BE(word, index * 4);
    });
    this.#key = key;
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const block = nodeCrypto()
        .createHmac('sha256', this.#key)
        .update(`crypto ${this.#counter++}`)
        .digest();
      const take = Math.min(block.length, length - filled);
      out.set(block.subarray(0, take), filled);
      filled += take;
    }
    return out;
  }

  /** A version 4 UUID in randomUUID's lowercase form, from the next 16 bytes. */
  uuid(): string {
    const bytes = this.bytes(16);
    bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
    bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
    const hex = Buffer.from(bytes).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}
