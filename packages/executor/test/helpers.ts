/**
 * Builds the real thing for tests: a Sandbox over real isolates, disposed when the file ends,
 * dispatch functions that serve tools from plain objects the way a caller would, and a pool child
 * with another caller's retained execution parked in it, for attacks that must not take it down.
 */
import { memoryLimitMessage } from '@supolka/codemode-protocol';
import { afterAll, expect } from 'vitest';
import { IsolateExecutor } from '../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../src/executor/options.ts';
import type { DispatchFunction } from '../src/sandbox/dispatch.ts';
import {
  type ExecuteResult,
  Sandbox,
  type SandboxExecuteRequest,
  type SandboxOptions,
} from '../src/sandbox/sandbox.ts';

/** One sandbox per test file, disposed after it. */
export function useSandbox(options: SandboxOptions = {}): Sandbox {
  const sandbox = new Sandbox(options);
  afterAll(() => sandbox.dispose());
  return sandbox;
}

type Tools = Record<string, Record<string, (...args: never[]) => unknown>>;

/** A dispatch function over `tools[provider][tool]`, answering the result envelope as JSON. */
export function serve(tools: Tools): DispatchFunction {
  return async (provider, tool, argsJson) => {
    const fn = tools[provider]?.[tool];
    if (fn === undefined) return JSON.stringify({ error: `Tool ${provider}.${tool} not found` });
    try {
      const args = JSON.parse(argsJson) as unknown;
      const result = await (Array.isArray(args) ? fn(...(args as never[])) : fn(args as never));
      return JSON.stringify({ result });
    } catch (error) {
      return JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
    }
  };
}

/** A request with its providers named after the tools served. */
export function withTools(tools: Tools, request: SandboxExecuteRequest): SandboxExecuteRequest {
  return { providers: Object.keys(tools).map((name) => ({ name })), dispatch: serve(tools), ...request };
}

/** The result of an async arrow run in a fresh isolate of `sandbox`; an error envelope fails the test. */
export async function resultOf(sandbox: Sandbox, code: string): Promise<unknown> {
  const envelope = await sandbox.execute({ code });
  if (envelope.error !== undefined) throw new Error(envelope.error);
  return envelope.result;
}

/** `t(fn)` in the isolate: the value, or `Name: message` of what fn threw. */
export const T = `const t = (f) => { try { return f(); } catch (e) { return e.name + ': ' + e.message; } };`;

/** workerd's text for a method or accessor called on the wrong object. */
export const ILLEGAL =
  'TypeError: Illegal invocation: function called with incorrect `this` reference. See https://developers.cloudflare.com/workers/observability/errors/#illegal-invocation-errors for details.';

export type Attack = (executor: IsolateExecutor) => Promise<ExecuteResult>;

/**
 * Runs `attack` in a pool of one child in which another caller's retained execution is parked
 * first; answers the attack's outcome, what the retained execution answers after it, and whether
 * the same child process is still serving.
 */
export async function againstRetained(attack: Attack, options: IsolateExecutorOptions = {}) {
  const executor = new IsolateExecutor({ poolSize: 1, ...options });
  try {
    const retained = await executor.execute({
      code: `async () => ({ fetch: async () => new Response('still here') })`,
      retainHandles: true,
    });
    const pid = executor.stats().children[0]?.pid;
    const outcome = await attack(executor);
    const after = await executor.invoke(retained.executionId as string, new Request('http://x/'));
    return {
      outcome,
      after: after.ok ? await after.text() : after.status,
      samePid: executor
        .stats()
        .children.map((child) => child.pid)
        .includes(pid as number),
    };
  } finally {
    await executor.dispose();
  }
}

/** The attack's run ends MEMORY_LIMIT under 64 MB; the child and the retained execution live on. */
export async function expectRunEndsChildLives(attack: Attack, options: IsolateExecutorOptions = {}) {
  const { outcome, after, samePid } = await againstRetained(attack, options);
  expect(outcome).toMatchObject({ code: 'MEMORY_LIMIT', error: memoryLimitMessage(64) });
  expect(after).toBe('still here');
  expect(samePid).toBe(true);
}
