/**
 * The Code Mode form as the contract's own consumer meets it: `@cloudflare/codemode`'s runCode
 * over this executor, which normalizes the code, calls `execute(code, providers)` and throws
 * `Code execution failed: <error>` (with the console lines after it) where the object form returns
 * the envelope's error. The door reads that throw back into an outcome; the result it resolves to
 * carries neither `code` nor `errorKind`.
 */
import { runCode } from '@cloudflare/codemode';
import { IsolateExecutor } from '../../../src/executor/isolate-executor.ts';
import { providersNamed } from '../catalogue.ts';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromParts, type Outcome } from '../outcome.ts';
import { codeModeDoor } from './codemode.ts';
import { allowsLoopback, outboundSetting } from './hooks.ts';

const FAILED = 'Code execution failed: ';
const CONSOLE = '\n\nConsole output:\n';

export const runCodeDoor: DoorSpec = {
  name: "@cloudflare/codemode's runCode",
  lacks: {
    ...codeModeDoor.lacks,
    cancel: 'runCode passes no signal to the executor',
  },
  omits: ['code', 'errorKind'],
  async open() {
    const executors = new Map<string, IsolateExecutor>();
    const executorFor = (behaviour: Behaviour) => {
      const key = JSON.stringify([
        behaviour.outbound,
        allowsLoopback(behaviour),
        behaviour.timeout,
        behaviour.memoryLimit,
        behaviour.modules,
      ]);
      let executor = executors.get(key);
      if (executor === undefined) {
        executor = new IsolateExecutor({
          poolSize: 1,
          allowLoopback: allowsLoopback(behaviour),
          outbound: outboundSetting(behaviour),
          ...(behaviour.timeout ? { timeout: behaviour.timeout } : {}),
          ...(behaviour.memoryLimit ? { memoryLimit: behaviour.memoryLimit } : {}),
          ...(behaviour.modules ? { modules: behaviour.modules } : {}),
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
  const providers = providersNamed(behaviour.providers ?? []).map(({ name, fns, prelude }) => ({
    name,
    fns: (fns ?? {}) as Record<string, (...args: unknown[]) => Promise<unknown>>,
    ...(prelude !== undefined ? { prelude } : {}),
  }));
  try {
    const { result, logs } = await runCode({ executor, code: statementCode(behaviour), providers });
    return fromParts({ result, logs: logs ?? [] });
  } catch (thrown) {
    const message = (thrown as Error).message;
    if (!message.startsWith(FAILED)) throw thrown;
    const [error, lines] = message.slice(FAILED.length).split(CONSOLE) as [string, string | undefined];
    return fromParts({ error, logs: lines === undefined ? [] : lines.split('\n') });
  }
}
