/**
 * What the durable token tests share: keys, a binding shaped like a real request's, a clock the
 * test moves, and a way to take a token's bytes apart and put them back.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { DurableBinding } from '../../src/durable/binding.ts';
import { TOKEN_PREFIX } from '../../src/durable/format.ts';
import {
  DurableKeyRing,
  DurableTokenError,
  DurableTokens,
  type DurableTokensOptions,
} from '../../src/durable/index.ts';

export const KEY_A = randomBytes(32);
export const KEY_B = randomBytes(32);

export function ring(...keys: [id: string, key: Uint8Array][]): DurableKeyRing {
  return new DurableKeyRing({
    keys: keys.map(([id, key]) => ({ id, key })),
    current: keys[0]?.[0] as string,
  });
}

/** A clock at a fixed instant that the test moves by hand. */
export function manualClock(start = Date.UTC(2026, 11, 4, 12)) {
  const clock = { now: start, read: () => clock.now };
  return clock;
}

export function binding(overrides: Partial<DurableBinding> = {}): DurableBinding {
  return {
    request: {
      code: 'async () => await billing.refund({ id: 7 })',
      modules: { 'util.js': 'export const x = 1' },
      providers: [{ name: 'billing', tools: ['refund', 'charge'] }],
      prelude: '',
      proxySource: 'const billing = ...',
      positionalArgs: false,
      outbound: 'disabled',
      bounds: { timeout: 60_000, memoryLimit: 128 },
    },
    runtime: 'sha256-runtime-bundle',
    versions: { executor: '0.1.0', v8: '13.6.233.10-node.27', isolatedVm: '7.0.1' },
    principal: 'user:alice',
    ...overrides,
  };
}

export function tokens(options: Partial<DurableTokensOptions> = {}): DurableTokens {
  return new DurableTokens({ keys: ring(['a', KEY_A]), ...options });
}

export const JOURNAL = [
  { call: 'billing.refund', args: { id: 7 }, outcome: { returned: { ok: true } } },
  { random: [0.25, 0.5] },
];

/** The bytes under a token's text. */
export function bytesOf(token: string): Buffer {
  return Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url');
}

export function textOf(bytes: Uint8Array): string {
  return TOKEN_PREFIX + Buffer.from(bytes).toString('base64url');
}

/** The refusal `promise` rejects with, which must be a DurableTokenError. */
export async function refusal(promise: Promise<unknown>): Promise<DurableTokenError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DurableTokenError);
  return error as DurableTokenError;
}
