/**
 * IsolateExecutor's object form: the program as an arrow, the providers with their fns, the
 * outbound tri-state on the request (native reaches loopback through the executor's opt-in), the
 * console streamed in batches through onConsole, a retained handler invoked with a Request.
 */
import { IsolateExecutor } from '../../../src/executor/isolate-executor.ts';
import type { HostProvider } from '../../../src/executor/providers.ts';
import { providersNamed, streamed } from '../catalogue.ts';
import { arrowCode, type Behaviour, type DoorSpec, invocationUrl } from '../door.ts';
import { fromEnvelope, lineText, type Outcome } from '../outcome.ts';
import { allowsLoopback, CANCEL_REASON, cancellation, outboundSetting } from './hooks.ts';

export const executorDoor: DoorSpec = {
  name: 'IsolateExecutor (object form)',
  lacks: {},
  // A cancel settles the envelope at once on the caller's side (docs/pool.md, "Outcomes"): the
  // lines the run wrote reached only a streaming caller.
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  async open() {
    // The loopback opt-in is the executor's: one executor for each value a row asks for. One
    // child each: a nested run gets a child of its own that its parent cannot hold (docs/pool.md).
    const executors = new Map<boolean, IsolateExecutor>();
    const executorFor = (behaviour: Behaviour) => {
      const allowLoopback = allowsLoopback(behaviour);
      let executor = executors.get(allowLoopback);
      if (executor === undefined) {
        executor = new IsolateExecutor({ poolSize: 1, allowLoopback });
        executors.set(allowLoopback, executor);
      }
      return executor;
    };
    return {
      run: (behaviour) => run(executorFor(behaviour), behaviour),
      close: async () => {
        await Promise.all([...executors.values()].map((executor) => executor.dispose()));
      },
    };
  },
};

async function run(executor: IsolateExecutor, behaviour: Behaviour): Promise<Outcome> {
  const cancel = cancellation(behaviour);
  try {
    const envelope = await executor.execute(
      {
        code: arrowCode(behaviour),
        providers: providersNamed(behaviour.providers ?? []) as HostProvider[],
        outbound: outboundSetting(behaviour),
        ...(behaviour.modules ? { modules: behaviour.modules } : {}),
        ...(behaviour.timeout ? { timeout: behaviour.timeout } : {}),
        ...(behaviour.memoryLimit ? { memoryLimit: behaviour.memoryLimit } : {}),
        ...(behaviour.invoke ? { retainHandles: true } : {}),
      },
      {
        onConsole: (lines) => {
          for (const line of lines) streamed.push(lineText(line));
        },
        ...(cancel.signal ? { signal: cancel.signal } : {}),
      },
    );
    const outcome = fromEnvelope(envelope);
    if (behaviour.invoke === undefined || envelope.executionId === undefined) return outcome;
    const responses: string[] = [];
    for (const path of behaviour.invoke) {
      const response = await executor.invoke(envelope.executionId, new Request(invocationUrl(path)));
      responses.push(`${response.status} ${await response.text()}`);
    }
    await executor.closeHandles(envelope.executionId);
    return { ...outcome, responses };
  } finally {
    cancel.release();
  }
}
