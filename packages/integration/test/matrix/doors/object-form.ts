/**
 * One row through an object-form `execute` (IsolateExecutor's own, or ExecutorClient's over the
 * server): both take the same request and options and retain handles the same way, so the two
 * doors differ only in how they name providers and outbound, and in what they call.
 */
import type { ExecuteResult, LogLine } from '@supolka/codemode-protocol';
import { streamed } from '../catalogue.ts';
import { arrowCode, type Behaviour, type DurableRow, invocationUrl } from '../door.ts';
import { fromEnvelope, lineText, type Outcome } from '../outcome.ts';
import { pausedThenResumed } from './durable.ts';
import { cancellation } from './hooks.ts';

/** The request fields every object form takes from the row alike, beside its providers and outbound. */
export interface RowRequest {
  code: string;
  modules?: NonNullable<Behaviour['modules']>;
  timeout?: number;
  memoryLimit?: number;
  consoleFormat?: 'inspect';
  retainHandles?: true;
  durable?: true;
}

/** The options every object form takes alike: the console streamed in batches, and the row's cancel. */
export interface RowOptions {
  onConsole: (lines: readonly LogLine[]) => void;
  signal?: AbortSignal;
}

/**
 * What a door calls: its execute (adding its own providers and outbound), its resume of a durable
 * run (the same request, with the paused envelope's token), invoke and closeHandles.
 */
export interface ObjectForm {
  execute(request: RowRequest, options: RowOptions): Promise<ExecuteResult>;
  resume(
    token: string,
    answers: DurableRow['answers'],
    request: RowRequest,
    options: RowOptions,
  ): Promise<ExecuteResult>;
  invoke(executionId: string, request: Request): Promise<Response>;
  closeHandles(executionId: string): Promise<void>;
}

/** Runs the row, then invokes its retained handler once per path the row names, and closes the handles. */
export async function runThroughObjectForm(form: ObjectForm, behaviour: Behaviour): Promise<Outcome> {
  const cancel = cancellation(behaviour);
  try {
    const request: RowRequest = {
      code: arrowCode(behaviour),
      ...(behaviour.modules ? { modules: behaviour.modules } : {}),
      ...(behaviour.timeout ? { timeout: behaviour.timeout } : {}),
      ...(behaviour.memoryLimit ? { memoryLimit: behaviour.memoryLimit } : {}),
      ...(behaviour.consoleFormat ? { consoleFormat: behaviour.consoleFormat } : {}),
      ...(behaviour.invoke ? { retainHandles: true } : {}),
      ...(behaviour.durable ? { durable: true } : {}),
    };
    const options: RowOptions = {
      onConsole: (lines) => {
        for (const line of lines) streamed.push(lineText(line));
      },
      ...(cancel.signal ? { signal: cancel.signal } : {}),
    };
    if (behaviour.durable !== undefined) {
      return await pausedThenResumed(
        behaviour,
        () => form.execute(request, options),
        (token, answers) => form.resume(token, answers, request, options),
        fromEnvelope,
      );
    }
    const envelope = await form.execute(request, options);
    const outcome = fromEnvelope(envelope);
    if (behaviour.invoke === undefined || envelope.executionId === undefined) return outcome;
    const responses: string[] = [];
    for (const path of behaviour.invoke) {
      const response = await form.invoke(envelope.executionId, new Request(invocationUrl(path)));
      responses.push(`${response.status} ${await response.text()}`);
    }
    await form.closeHandles(envelope.executionId);
    return { ...outcome, responses };
  } finally {
    cancel.release();
  }
}
