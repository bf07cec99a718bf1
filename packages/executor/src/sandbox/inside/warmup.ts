/**
 * The body of WARMUP_SOURCE (sandbox-source.ts): runs the preparation and one run's path against
 * stand-ins for the host references, in the throwaway context V8 uses to warm a snapshot up, so a
 * prepared isolate starts with bytecode instead of compiling its own machinery. Only the compiled
 * code is kept.
 */
import type { RunSupport, SandboxGlobal } from './host.ts';

// The Web APIs the runtime bundle installed, as far as this warm-up touches them.
declare const console: { log(...values: unknown[]): void };
declare const atob: (text: string) => string;
declare const btoa: (text: string) => string;
declare const URL: new (
  url: string,
) => { searchParams: { get(name: string): unknown }; href: string; origin: string };
declare const TextEncoder: new () => { encode(text: string): Uint8Array };
declare const TextDecoder: new () => { decode(bytes: Uint8Array): string };
declare const Response: new (body: string) => { headers: { get(name: string): unknown } };

type Prepare = (...references: unknown[]) => { answerDispatch: (call: number, answer: unknown) => void };

export default function warmUp(): void {
  const host = { apply: () => new Promise(() => {}), applySync: () => true, applyIgnored: () => {} };
  const { answerDispatch } = (globalThis as SandboxGlobal & { __prepareSandbox: Prepare }).__prepareSandbox(
    host,
    { randomUUID: host, randomBytes: host },
    host,
    host,
    host,
    host,
    host,
    host,
  );
  const sandbox = (globalThis as SandboxGlobal).__runtimeInternals.sandbox as RunSupport;
  const tools = sandbox.provider('tools', true) as { call(value: unknown): Promise<unknown> };
  console.log('warm', 1);
  sandbox.startRun(async () => {
    await null;
    return { bytes: new Uint8Array(1), text: atob(btoa('warm')) };
  }, 'warm');
  // The first call of this context is number 1: its answer compiles the way back too.
  tools.call(1).catch(() => {});
  answerDispatch(1, 'r{"result":1}');
  const url = new URL('https://user@a.example:81/b/../c?d=e f#g');
  url.searchParams.get('d');
  String(url.searchParams);
  url.href;
  url.origin;
  new TextDecoder().decode(new TextEncoder().encode('héllo'));
  new Response('warm').headers.get('content-type');
}
