/**
 * The runtime bundle's entry. The package's build (scripts/build.ts) bundles this file into
 * RUNTIME_SOURCE, and the executor runs it once per process to make the V8 startup snapshot every
 * isolate is restored from. Loading it installs every global that needs nothing from the host, in
 * the order of INSTALLERS (later interfaces build on earlier ones).
 *
 * Two pieces of state cannot be made while the snapshot is made, so they are installed in a
 * second step, by the __hostBindings handshake the sandbox calls in every restored isolate
 * (docs/runtime.md says why each one fails a snapshot):
 *
 *   1. the listener list of the global object: listeners are kept per EventTarget, and the global
 *      object user code sees is created with the context, after the snapshot;
 *   2. the closures over the host references: a Reference is a handle into the host process, which
 *      V8 cannot serialize (it aborts the process trying).
 *
 * It also guards WebAssembly and SharedArrayBuffer, which V8 adds only to a context it restores,
 * and bounds by the isolate's limit what the engine's limit does not meter. Everything else is
 * done here, once, so it lives in the snapshot (each step costs every isolate its time otherwise).
 */
// First: libraries below read DOMException off the global object when they load.
import './dom-exception-global.ts';
import { AbortController, AbortSignal } from './abort/abort-signal.ts';
import { limitArraySizes } from './array-size-limits.ts';
import { atob, btoa } from './base64.ts';
import { refuseCodeGeneration, refuseWebAssembly } from './code-generation.ts';
import { formatInspect } from './console-format.ts';
import { installCrypto } from './crypto/index.ts';
import { installDate, virtualClock } from './date.ts';
import { installEncoding } from './encoding/index.ts';
import { CustomEvent, ErrorEvent, PromiseRejectionEvent } from './events/error-event.ts';
import { Event } from './events/event.ts';
import { EventTarget } from './events/event-target.ts';
import { connectGlobalEvents, installGlobalEvents } from './events/global-events.ts';
import { installFetch } from './fetch/index.ts';
import { isResponse, requestFromWire, responseToWire } from './fetch/wire.ts';
import { exposeInterface, exposeMember, markPublishedNative, nativeSource } from './global-scope.ts';
import { connectHost, type HostBindings } from './host.ts';

/** The shape of a host reference inside the isolate, for the sandbox's isolate-side code. */
export type { HostReference } from './host.ts';

import { assertRequestScope, markObserved, observedKind, scope } from './internals.ts';
import { setMemoryLimit } from './memory-limit.ts';
import { createNavigator, Navigator } from './navigator.ts';
import { performance } from './performance.ts';
import { ObjectDefineProperty } from './primordials.ts';
import { reportException } from './report-exception.ts';
import { guardArrayBuffer, limitReservedMemory } from './reserved-memory.ts';
import { installStreams } from './streams/index.ts';
import { registerPlatformInterface, structuredClone } from './structured-clone.ts';
import { installUrl } from './url/index.ts';
import { limitWebAssemblyMemory } from './webassembly-memory.ts';
import { GLOBAL_SCOPE } from './webidl.ts';

const INSTALLERS: readonly (() => void)[] = [
  // First: String.prototype.split checked for a result past the largest array (array-size-limits.ts).
  limitArraySizes,
  installDate,
  () => {
    exposeMember('atob', atob);
    exposeMember('btoa', btoa);
    exposeMember('self', globalThis);
    // What workerd's global scope says it is: its tag, and the opaque origin a Worker has.
    ObjectDefineProperty(globalThis, Symbol.toStringTag, {
      value: GLOBAL_SCOPE,
      writable: true,
      enumerable: false,
      configurable: true,
    });
    ObjectDefineProperty(globalThis, 'origin', {
      value: 'null',
      writable: false,
      enumerable: true,
      configurable: true,
    });
    exposeMember('structuredClone', structuredClone);
    exposeMember('performance', performance);
    exposeInterface('Navigator', Navigator);
    exposeMember('navigator', createNavigator());
  },
  () => {
    exposeInterface('Event', registerPlatformInterface(Event));
    exposeInterface('EventTarget', registerPlatformInterface(EventTarget));
    exposeInterface('ErrorEvent', registerPlatformInterface(ErrorEvent));
    exposeInterface('CustomEvent', registerPlatformInterface(CustomEvent));
    exposeInterface('PromiseRejectionEvent', registerPlatformInterface(PromiseRejectionEvent));
    exposeInterface('AbortController', registerPlatformInterface(AbortController));
    exposeInterface('AbortSignal', registerPlatformInterface(AbortSignal));
    installGlobalEvents();
  },
  installStreams,
  installEncoding,
  installUrl,
  installFetch,
  installCrypto,
];

for (const install of INSTALLERS) install();
// Last: every function published above shows workerd's native shape (length 0, native source).
markPublishedNative();
// After it, so these replacements keep their own shapes; done here, so they live in the snapshot:
// eval and the function constructors (code-generation.ts) and ArrayBuffer's guard
// (reserved-memory.ts). WebAssembly's and SharedArrayBuffer's wait for the second step.
refuseCodeGeneration();
guardArrayBuffer();

/** The second step: the state a snapshot cannot hold, installed in every restored isolate. */
function secondStep(bindings: HostBindings): void {
  delete (globalThis as { __hostBindings?: unknown }).__hostBindings;
  connectGlobalEvents();
  connectHost(bindings);
  // WebAssembly exists only in a restored context: its compiling members are refused here.
  refuseWebAssembly();
  // Memory the isolate's limit does not meter, bounded by that limit (reserved-memory.ts).
  setMemoryLimit(bindings.memoryLimit);
  limitReservedMemory();
  limitWebAssemblyMemory();
}

ObjectDefineProperty(globalThis, '__hostBindings', {
  value: secondStep,
  writable: false,
  enumerable: false,
  configurable: true,
});
ObjectDefineProperty(globalThis, '__runtimeInternals', {
  value: {
    scope,
    assertRequestScope,
    reportException,
    nativeSource,
    http: { requestFromWire, responseToWire, isResponse },
    errors: { mark: markObserved, kindOf: observedKind },
    formatInspect,
    virtualClock,
  },
  writable: false,
  enumerable: false,
  configurable: true,
});
