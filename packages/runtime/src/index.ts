/**
 * The runtime bundle's entry. tools/executor/generate-runtime-bundle.ts bundles this file into
 * RUNTIME_SOURCE, and the executor runs it once per process to make the V8 startup snapshot every
 * isolate is restored from. Loading it installs every global that needs nothing from the host, in
 * the order of INSTALLERS (later interfaces build on earlier ones).
 *
 * Three pieces of state cannot be made while the snapshot is made, so they are installed in a
 * second step, by the __hostBindings handshake the sandbox calls in every restored isolate
 * (docs/runtime.md says why each one fails a snapshot):
 *
 *   1. the moment the clock starts: a time read now would be the snapshot's own, baked into every
 *      isolate, so performance.timeOrigin is read when the isolate is prepared;
 *   2. the listener list of the global object: listeners are kept per EventTarget, and the global
 *      object user code sees is created with the context, after the snapshot;
 *   3. the closures over the host references: a Reference is a handle into the host process, which
 *      V8 cannot serialize (it aborts the process trying).
 */
// First: libraries below read DOMException off the global object when they load.
import './dom-exception-global.ts';
import { AbortController, AbortSignal } from './abort/abort-signal.ts';
import { atob, btoa } from './base64.ts';
import { refuseCodeGeneration } from './code-generation.ts';
import { installCrypto } from './crypto/index.ts';
import { installEncoding } from './encoding/index.ts';
import { CustomEvent, ErrorEvent, PromiseRejectionEvent } from './events/error-event.ts';
import { Event } from './events/event.ts';
import { EventTarget } from './events/event-target.ts';
import { connectGlobalEvents, installGlobalEvents } from './events/global-events.ts';
import { installFetch } from './fetch/index.ts';
import { isResponse, requestFromWire, responseToWire } from './fetch/wire.ts';
import { exposeInterface, exposeMember } from './global-scope.ts';
import { connectHost, type HostBindings } from './host.ts';
import { assertRequestScope, scope } from './internals.ts';
import { createNavigator, Navigator } from './navigator.ts';
import { performance, startClock } from './performance.ts';
import { ObjectDefineProperty } from './primordials.ts';
import { reportException } from './report-exception.ts';
import { installStreams } from './streams/index.ts';
import { registerPlatformInterface, structuredClone } from './structured-clone.ts';
import { installUrl } from './url/index.ts';

const INSTALLERS: readonly (() => void)[] = [
  () => {
    exposeMember('atob', atob);
    exposeMember('btoa', btoa);
    exposeMember('self', globalThis);
    exposeMember('structuredClone', structuredClone);
    exposeMember('performance', performance);
    exposeInterface('Navigator', Navigator);
    exposeMember('navigator', createNavigator());
  },
  () => {
    for (const [name, value] of [
      ['Event', Event],
      ['EventTarget', EventTarget],
      ['ErrorEvent', ErrorEvent],
      ['CustomEvent', CustomEvent],
      ['PromiseRejectionEvent', PromiseRejectionEvent],
      ['AbortController', AbortController],
      ['AbortSignal', AbortSignal],
    ] as const) {
      exposeInterface(name, value);
      registerPlatformInterface(value);
    }
    installGlobalEvents();
  },
  installStreams,
  installEncoding,
  installUrl,
  installFetch,
  installCrypto,
];

for (const install of INSTALLERS) install();

/** The second step: the state a snapshot cannot hold, installed in every restored isolate. */
function secondStep(bindings: HostBindings): void {
  delete (globalThis as { __hostBindings?: unknown }).__hostBindings;
  startClock();
  connectGlobalEvents();
  connectHost(bindings);
  refuseCodeGeneration();
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
    http: { requestFromWire, responseToWire, isResponse },
  },
  writable: false,
  enumerable: false,
  configurable: true,
});
