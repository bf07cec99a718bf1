/**
 * Shared by the crypto suites: runs a program body in a real isolate with a few byte helpers
 * (the runtime's TextEncoder is not needed for them), and fails the test with the envelope's error.
 */
import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.ts';

const PRELUDE = `
  const subtle = crypto.subtle;
  const bytes = (text) => Uint8Array.from(text, (c) => c.charCodeAt(0));
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (x) => x.toString(16).padStart(2, '0')).join('');
  const fromHex = (text) => new Uint8Array((text.match(/../g) ?? []).map((x) => parseInt(x, 16)));
  const failure = async (promise) => {
    try { await promise; return 'resolved'; }
    catch (e) { return [e.name, e.message, e instanceof DOMException]; }
  };
  const thrown = (fn) => {
    try { fn(); return 'returned'; }
    catch (e) { return [e.name, e.message, e instanceof DOMException]; }
  };
`;

/** Runs `body` (the inside of an async arrow) with `input` in scope; answers what it returned. */
export async function runProgram(sandbox: Sandbox, body: string, input?: unknown): Promise<unknown> {
  const envelope = await sandbox.execute({
    code: `async () => {${PRELUDE}
  const input = ${JSON.stringify(input ?? null)};
  ${body}
}`,
  });
  expect(envelope.error, envelope.error).toBeUndefined();
  return envelope.result;
}

export const hexOf = (data: ArrayBuffer | Uint8Array | Buffer): string =>
  Buffer.from(data as Uint8Array).toString('hex');
