/**
 * IsolateExecutor's object form: the program as an arrow, the providers with their fns, the
 * outbound tri-state on the request (native reaches loopback through the executor's opt-in), the
 * console streamed in batches through onConsole, a retained handler invoked with a Request, a
 * durable run resumed with executor.resume.
 */

import type { HostProvider } from '@supolka/codemode-executor';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { providersNamed } from '../catalogue.ts';
import type { Behaviour, DoorSpec } from '../door.ts';
import type { Outcome } from '../outcome.ts';
import { PACKAGE_DIRECTORIES, usesPackages } from '../package-doors.ts';
import { durableKeys } from './durable.ts';
import { allowsLoopback, CANCEL_REASON, outboundSetting } from './hooks.ts';
import { type RowRequest, runThroughObjectForm } from './object-form.ts';
import { OnePerSetting } from './one-per-setting.ts';

export const executorDoor: DoorSpec = {
  name: 'IsolateExecutor (object form)',
  takes: 'arrow',
  lacks: {},
  // A cancel settles the envelope at once on the caller's side (docs/pool.md, "Outcomes"): the
  // lines the run wrote reached only a streaming caller.
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  async open() {
    // The loopback opt-in is the executor's: one executor for each value a row asks for. One
    // child each: a nested run gets a child of its own that its parent cannot hold (docs/pool.md).
    // So is the wall-clock bound.
    const executors = new OnePerSetting<string, IsolateExecutor>();
    // So are the packages programs may import.
    const executorFor = (behaviour: Behaviour) => {
      const allowLoopback = allowsLoopback(behaviour);
      const { wallClockLimit } = behaviour;
      const packages = usesPackages(behaviour);
      return executors.for(
        `${allowLoopback} ${wallClockLimit} ${packages}`,
        () =>
          new IsolateExecutor({
            poolSize: 1,
            allowLoopback,
            ...(wallClockLimit !== undefined ? { wallClockLimit } : {}),
            ...(packages ? { packages: PACKAGE_DIRECTORIES } : {}),
            durable: { keys: durableKeys() },
          }),
      );
    };
    return {
      run: (behaviour) => run(executorFor(behaviour), behaviour),
      close: async () => {
        await Promise.all(executors.all().map((executor) => executor.dispose()));
      },
    };
  },
};

function run(executor: IsolateExecutor, behaviour: Behaviour): Promise<Outcome> {
  const withTools = (request: RowRequest) => ({
    ...request,
    providers: providersNamed(behaviour.providers ?? []) as HostProvider[],
    outbound: outboundSetting(behaviour),
  });
  return runThroughObjectForm(
    {
      execute: (request, options) => executor.execute(withTools(request), options),
      resume: (token, answers, request, options) =>
        executor.resume(token, answers, withTools(request), options),
      invoke: (executionId, request) => executor.invoke(executionId, request),
      closeHandles: (executionId) => executor.closeHandles(executionId),
    },
    behaviour,
  );
}
