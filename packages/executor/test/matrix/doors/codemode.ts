/**
 * IsolateExecutor's Code Mode form, the `@cloudflare/codemode` Executor interface:
 * `execute(code, providers, { signal })` with the program as statements and each namespace as
 * `{ name, fns, prelude? }`. The form takes no per-request settings, so outbound, the loopback
 * opt-in, modules, timeout and memory limit are the executor's options: the door keeps one
 * executor per distinct set a row asks for. Logs come back as the contract's strings already.
 */
import type { CodeModeProvider } from '../../../src/codemode/contract.ts';
import { IsolateExecutor } from '../../../src/executor/isolate-executor.ts';
import { providersNamed } from '../catalogue.ts';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromParts, type Outcome } from '../outcome.ts';
import { allowsLoopback, CANCEL_REASON, cancellation, outboundSetting } from './hooks.ts';

export const codeModeDoor: DoorSpec = {
  name: 'IsolateExecutor (Code Mode form)',
  lacks: {
    'proxy-source': "the contract's provider is { name, fns, prelude? }: no proxySource",
    'stream-console': "the contract's execute has no console callback; lines come in the result",
    retain: 'the contract has no retained handles: execute answers a result, never an executionId',
  },
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  async open() {
    const executors = new Map<string, IsolateExecutor>();
    const executorFor = (behaviour: Behaviour) => {
      const settings = {
        outbound: behaviour.outbound ?? 'disabled',
        allowLoopback: allowsLoopback(behaviour),
        timeout: behaviour.timeout,
        memoryLimit: behaviour.memoryLimit,
        modules: behaviour.modules,
      };
      const key = JSON.stringify(settings);
      let executor = executors.get(key);
      if (executor === undefined) {
        executor = new IsolateExecutor({
          poolSize: 1,
          allowLoopback: settings.allowLoopback,
          outbound: outboundSetting(behaviour),
          ...(settings.timeout ? { timeout: settings.timeout } : {}),
          ...(settings.memoryLimit ? { memoryLimit: settings.memoryLimit } : {}),
          ...(settings.modules ? { modules: settings.modules } : {}),
        });
        executors.set(key, executor);
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
  const providers: CodeModeProvider[] = providersNamed(behaviour.providers ?? []).map(
    ({ name, fns, prelude }) => ({
      name,
      fns: (fns ?? {}) as CodeModeProvider['fns'],
      ...(prelude !== undefined ? { prelude } : {}),
    }),
  );
  const cancel = cancellation(behaviour);
  try {
    const answer = await executor.execute(
      statementCode(behaviour),
      providers,
      cancel.signal ? { signal: cancel.signal } : {},
    );
    return fromParts(answer);
  } finally {
    cancel.release();
  }
}
