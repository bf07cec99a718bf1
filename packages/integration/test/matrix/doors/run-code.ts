/**
 * The Code Mode form as the contract's own consumer meets it: `@cloudflare/codemode`'s runCode
 * over this executor, which normalizes the code, calls `execute(code, providers)` and throws
 * `Code execution failed: <error>` (with the console lines after it) where the object form returns
 * the envelope's error. The door reads that throw back into an outcome; neither the throw nor the
 * result it resolves to carries `code`, `errorKind`, version 3's fields of a failure or `notes`.
 */
import { runCode } from '@cloudflare/codemode';
import type { IsolateExecutor } from '@supolka/codemode-executor';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromParts, type Outcome } from '../outcome.ts';
import { codeModeExecutors, codeModeProviders } from './code-mode-form.ts';
import { codeModeDoor } from './codemode.ts';

const FAILED = 'Code execution failed: ';
const CONSOLE = '\n\nConsole output:\n';

export const runCodeDoor: DoorSpec = {
  name: "@cloudflare/codemode's runCode",
  takes: 'statements',
  lacks: {
    ...codeModeDoor.lacks,
    cancel: 'runCode passes no signal to the executor',
    durable:
      'runCode passes the executor no durable option and keeps only the result and the lines: no run of it pauses, and no token comes back to resume',
  },
  omits: Object.fromEntries(
    ['code', 'errorKind', 'errorProvider', 'errorTool', 'errorAt', 'errorJson', 'notes'].map((field) => [
      field,
      "runCode keeps the result and the console lines, and throws the error's text alone: the answer's other fields are dropped",
    ]),
  ),
  async open() {
    const { executorFor, close } = codeModeExecutors();
    return { run: (behaviour) => run(executorFor(behaviour), behaviour), close };
  },
};

async function run(executor: IsolateExecutor, behaviour: Behaviour): Promise<Outcome> {
  // runCode types its providers' fns as taking unknown arguments and answering promises; the
  // contract's are the same functions typed as this executor's CodeModeProvider has them.
  const providers = codeModeProviders(behaviour) as Parameters<typeof runCode>[0]['providers'];
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
