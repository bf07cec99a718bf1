/**
 * The body of WARMUP_SOURCE (setup/sandbox-source.ts): runs the preparation and one run's path against
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
  /**
   * Stand-ins for the globals V8 adds to a context only when it is created from the snapshot, never
   * while the snapshot is made: WebAssembly and SharedArrayBuffer. The second install step replaces
   * members of both in every isolate (code-generation.ts, reserved-memory.ts, webassembly-memory.ts
   * in the runtime); without them here the warm-up skips those paths, and every isolate compiled
   * them anew while it was prepared (about 0.3 ms each, docs/sandbox.md). Each has the members those
   * steps read. They live in the warm-up's throwaway context only.
   */
  function standInEngineGlobals(): void {
    class CompileError extends Error {}
    class Memory {
      get buffer(): ArrayBuffer {
        return new ArrayBuffer(0);
      }
      grow(): number {
        return 0;
      }
    }
    class Table {
      get length(): number {
        return 0;
      }
      grow(): number {
        return 0;
      }
    }
    class SharedBufferStandIn {
      get byteLength(): number {
        return 0;
      }
    }
    const refuse = () => Promise.reject(new CompileError('stand-in'));
    const global = globalThis as Record<string, unknown>;
    global.WebAssembly = {
      CompileError,
      Module: class Module {},
      Memory,
      Table,
      compile: refuse,
      instantiate: refuse,
      compileStreaming: refuse,
      instantiateStreaming: refuse,
    };
    global.SharedArrayBuffer = SharedBufferStandIn;
  }
  standInEngineGlobals();
  const host = { apply: () => new Promise(() => {}), applySync: () => true, applyIgnored: () => {} };
  const { answerDispatch } = (globalThis as SandboxGlobal & { __prepareSandbox: Prepare }).__prepareSandbox(
    host,
    // Every reference the host hands in, and the limit: the handshake compiles each branch it takes.
    {
      randomUUID: host,
      randomBytes: host,
      sendRequest: host,
      performSubtleOperation: host,
      loadPiece: host,
      memoryLimit: 128,
    },
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
