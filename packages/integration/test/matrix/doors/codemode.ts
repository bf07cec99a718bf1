/**
 * IsolateExecutor's Code Mode form, the `@cloudflare/codemode` Executor interface:
 * `execute(code, providers, { signal })` with the program as statements and each namespace as
 * `{ name, fns, prelude? }`. The form takes no per-request settings, so outbound, the loopback
 * opt-in, modules, timeout and memory limit are the executor's options: the door keeps one
 * executor per distinct set a row asks for (code-mode-form.ts). Logs come back as the contract's
 * strings already. A durable row uses the form's own additions: `execute` with `durable` and a
 * `principal`, then the form's `resume(token, answers, code, providers, { principal })`.
 */
import type { CodeModeExecuteOptions, IsolateExecutor } from '@supolka/codemode-executor';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromParts, type Outcome } from '../outcome.ts';
import { codeModeExecutors, codeModeProviders } from './code-mode-form.ts';
import { pausedThenResumed } from './durable.ts';
import { CANCEL_REASON, cancellation } from './hooks.ts';

/**
 * Whom the door's durable runs are for: the token is bound to it, so a resume that left it out
 * would be refused (TOKEN_MISMATCH) and the row would fail.
 */
const PRINCIPAL = 'matrix-user';

export const codeModeDoor: DoorSpec = {
  name: 'IsolateExecutor (Code Mode form)',
  takes: 'statements',
  lacks: {
    'proxy-source': "the contract's provider is { name, fns, prelude? }: no proxySource",
    'stream-console': "the contract's execute has no console callback; lines come in the result",
    retain: 'the contract has no retained handles: execute answers a result, never an executionId',
  },
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  async open() {
    const { executorFor, close } = codeModeExecutors();
    return { run: (behaviour) => run(executorFor(behaviour), behaviour), close };
  },
};

async function run(executor: IsolateExecutor, behaviour: Behaviour): Promise<Outcome> {
  const code = statementCode(behaviour);
  const providers = codeModeProviders(behaviour);
  const cancel = cancellation(behaviour);
  const options: CodeModeExecuteOptions = cancel.signal ? { signal: cancel.signal } : {};
  try {
    if (behaviour.durable !== undefined) {
      return await pausedThenResumed(
        behaviour,
        () => executor.execute(code, providers, { ...options, durable: true, principal: PRINCIPAL }),
        (token, answers) =>
          executor.resume(token, answers, code, providers, { ...options, principal: PRINCIPAL }),
        fromParts,
      );
    }
    return fromParts(await executor.execute(code, providers, options));
  } finally {
    cancel.release();
  }
}
