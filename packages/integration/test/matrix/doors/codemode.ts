/**
 * IsolateExecutor's Code Mode form, the `@cloudflare/codemode` Executor interface:
 * `execute(code, providers, { signal })` with the program as statements and each namespace as
 * `{ name, fns, prelude? }`. The form takes no per-request settings, so outbound, the loopback
 * opt-in, modules, timeout and memory limit are the executor's options: the door keeps one
 * executor per distinct set a row asks for (code-mode-form.ts). Logs come back as the contract's
 * strings already.
 */
import type { IsolateExecutor } from '@supolka/codemode-executor';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromParts, type Outcome } from '../outcome.ts';
import { codeModeExecutors, codeModeProviders } from './code-mode-form.ts';
import { CANCEL_REASON, cancellation } from './hooks.ts';

export const codeModeDoor: DoorSpec = {
  name: 'IsolateExecutor (Code Mode form)',
  takes: 'statements',
  lacks: {
    'proxy-source': "the contract's provider is { name, fns, prelude? }: no proxySource",
    'stream-console': "the contract's execute has no console callback; lines come in the result",
    retain: 'the contract has no retained handles: execute answers a result, never an executionId',
    durable:
      "the contract's callers never ask for durability: @cloudflare/codemode's connector pause keeps its own meaning (docs/durable.md); the form's own option is docs/codemode.md's",
  },
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  async open() {
    const { executorFor, close } = codeModeExecutors();
    return { run: (behaviour) => run(executorFor(behaviour), behaviour), close };
  },
};

async function run(executor: IsolateExecutor, behaviour: Behaviour): Promise<Outcome> {
  const providers = codeModeProviders(behaviour);
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
