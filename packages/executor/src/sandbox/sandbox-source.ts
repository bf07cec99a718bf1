/**
 * SANDBOX_SOURCE: the sandbox's own code inside the isolate, run once per process into the startup
 * snapshot after the runtime bundle. It defines one function, __prepareSandbox, which every
 * restored isolate calls once, with the host references, to install each piece in the chapter's
 * order: the console, the runtime handshake, the timers, the dispatch bridge, the import() loader,
 * the completion names, and the run support the entry imports.
 *
 * Living in the snapshot, none of this is parsed again per isolate, and WARMUP_SOURCE has V8
 * compile every function of the path a run takes while the snapshot is made, so a prepared
 * isolate starts with bytecode instead of compiling its own machinery (docs/sandbox.md measures it).
 */
import { DISPATCH_CODEC_SOURCE } from './codec.ts';
import { CONSOLE_SOURCE } from './console.ts';
import { DISPATCH_SOURCE } from './dispatch.ts';
import { RUN_SUPPORT_SOURCE } from './internal-module.ts';
import { LOADER_SOURCE } from './loader.ts';
import { BINDINGS_SOURCE } from './runtime-bindings.ts';
import { RUN_SOURCE } from './timeout.ts';
import { TIMERS_SOURCE } from './timers.ts';

export const SANDBOX_SOURCE = `(() => {
'use strict';
${DISPATCH_CODEC_SOURCE}
const runSupport = ${RUN_SUPPORT_SOURCE};
const prepare = (consoleSink, runtime, hostDelay, hostDispatch, hostLoad, hostTimeout, hostResult, hostSignal) => {
  delete globalThis.__prepareSandbox;
  ${CONSOLE_SOURCE}(consoleSink, globalThis.__runtimeInternals.nativeSource);
  ${BINDINGS_SOURCE}(runtime);
  ${TIMERS_SOURCE}(hostDelay);
  ${DISPATCH_SOURCE}(hostDispatch);
  ${LOADER_SOURCE}(hostLoad);
  ${RUN_SOURCE}(hostTimeout, hostResult);
  const internals = globalThis.__runtimeInternals;
  internals.sandbox = runSupport(internals, hostSignal);
};
Object.defineProperty(globalThis, '__prepareSandbox', { value: prepare, configurable: true });
})();`;

/**
 * Runs the preparation and one run's path against stand-ins for the host references, in the
 * throwaway context V8 uses to warm a snapshot up. Only the compiled code is kept.
 */
export const WARMUP_SOURCE = `(() => {
  const host = { apply: () => new Promise(() => {}), applySync: () => true };
  globalThis.__prepareSandbox(host, { randomUUID: host, randomBytes: host }, host, host, host, host, host, host);
  const sandbox = globalThis.__runtimeInternals.sandbox;
  const tools = sandbox.provider('tools', true);
  console.log('warm', 1);
  sandbox.startRun(async () => {
    await null;
    return { bytes: new Uint8Array(1), text: atob(btoa('warm')) };
  }, 'warm');
  tools.call(1).catch(() => {});
  const url = new URL('https://user@a.example:81/b/../c?d=e f#g');
  url.searchParams.get('d');
  String(url.searchParams);
  url.href;
  url.origin;
  new TextDecoder().decode(new TextEncoder().encode('héllo'));
  new Response('warm').headers.get('content-type');
})();`;
