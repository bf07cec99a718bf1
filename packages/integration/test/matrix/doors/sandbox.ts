/**
 * The in-process Sandbox (`@supolka/codemode-executor/sandbox`): the program as an arrow, the
 * providers as descriptors with one dispatch function serving their fns (the one IsolateExecutor
 * builds), the outbound tri-state and the loopback opt-in on the request, a retained handler
 * invoked with wire requests, and a durable run resumed with sandbox.resume; the packages rows run
 * in a sandbox given the bundle of the matrix's packages.
 */
import { bundlePackages } from '@supolka/codemode-packages';
import { buildDispatch, describeProviders, isPauseSignal } from '@supolka/codemode-protocol';
import { DurableKeyRing } from '../../../../executor/src/durable/keys.ts';
import type { HostProvider } from '../../../../executor/src/executor/request.ts';
import { Sandbox, type SandboxExecuteRequest } from '../../../../executor/src/sandbox/sandbox.ts';
import { providersNamed, streamed } from '../catalogue.ts';
import { arrowCode, type Behaviour, type DoorSpec, invocationUrl } from '../door.ts';
import { fromEnvelope, lineText, type Outcome } from '../outcome.ts';
import { PACKAGE_DIRECTORIES, usesPackages } from '../package-doors.ts';
import { DURABLE_KEY, pausedThenResumed } from './durable.ts';
import { allowsLoopback, CANCEL_REASON, cancellation, outboundSetting } from './hooks.ts';

export const sandboxDoor: DoorSpec = {
  name: 'Sandbox',
  takes: 'arrow',
  lacks: {
    'wall-clock':
      'the Sandbox has the run clock only, which a tool wait pauses; the wall-clock bound is the executor’s, around the pool',
  },
  // The capture exists before the isolate, so a cancelled run keeps what it wrote.
  cancellation: { reason: CANCEL_REASON, keepsLogs: true },
  async open(rows) {
    // The sandbox is the sources', so its ring is made with the sources' class too.
    const sandbox = new Sandbox({ durable: { keys: new DurableKeyRing({ keys: [DURABLE_KEY] }) } });
    // The packages rows get a sandbox of their own, given the bundle @supolka/codemode-packages made,
    // so every other row's not-found sentence stays the plain one.
    const packaged = rows.some(usesPackages)
      ? new Sandbox({ packages: await bundlePackages({ packages: PACKAGE_DIRECTORIES }) })
      : undefined;
    return {
      run: (behaviour) => run(usesPackages(behaviour) ? (packaged as Sandbox) : sandbox, behaviour),
      close: async () => {
        sandbox.dispose();
        packaged?.dispose();
      },
    };
  },
};

/**
 * The dispatch IsolateExecutor builds over the same fns, a tool's pause signal passing through it
 * as it does there; none when no namespace has fns.
 */
function dispatchOf(providers: readonly HostProvider[]) {
  const dispatch = buildDispatch(providers, undefined, isPauseSignal);
  return dispatch === undefined ? {} : { dispatch };
}

async function run(sandbox: Sandbox, behaviour: Behaviour): Promise<Outcome> {
  const providers = providersNamed(behaviour.providers ?? []) as HostProvider[];
  const cancel = cancellation(behaviour);
  try {
    const request: SandboxExecuteRequest = {
      code: arrowCode(behaviour),
      providers: describeProviders(providers),
      ...dispatchOf(providers),
      outbound: outboundSetting(behaviour),
      allowLoopback: allowsLoopback(behaviour),
      onConsole: (line) => streamed.push(lineText(line)),
      ...(behaviour.modules ? { modules: behaviour.modules } : {}),
      ...(behaviour.timeout ? { timeout: behaviour.timeout } : {}),
      ...(behaviour.memoryLimit ? { memoryLimit: behaviour.memoryLimit } : {}),
      ...(behaviour.consoleFormat ? { consoleFormat: behaviour.consoleFormat } : {}),
      ...(behaviour.invoke ? { retainHandles: true } : {}),
      ...(cancel.signal ? { signal: cancel.signal } : {}),
    };
    if (behaviour.durable !== undefined) {
      const durable = { ...request, durable: true as const };
      return await pausedThenResumed(
        behaviour,
        () => sandbox.execute(durable),
        (token, answers) => sandbox.resume(token, answers, durable),
        fromEnvelope,
      );
    }
    const envelope = await sandbox.execute(request);
    const outcome = fromEnvelope(envelope);
    if (behaviour.invoke === undefined || envelope.executionId === undefined) return outcome;
    const responses: string[] = [];
    for (const path of behaviour.invoke) {
      const response = await sandbox.invoke(envelope.executionId, {
        method: 'GET',
        url: invocationUrl(path),
        headers: [],
        body: null,
      });
      responses.push(`${response.status} ${new TextDecoder().decode(response.body ?? new Uint8Array())}`);
    }
    sandbox.closeHandles(envelope.executionId);
    return { ...outcome, responses };
  } finally {
    cancel.release();
  }
}
