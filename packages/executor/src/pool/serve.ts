/**
 * The parent's half of a run's calls: a tool call or an outbound request arrives from the child as
 * a message, the caller's function serves it in this process, and the outcome goes back as a
 * frame. Nothing here rejects: a failure is a `thrown` frame, which the sandbox rethrows behind the
 * isolate boundary without any stack of this process.
 */
import {
  type DispatchFrame,
  describeValue,
  EXECUTION_COMPLETED_MESSAGE,
  echo,
  errorText,
  IN_FLIGHT_CALL_LIMIT,
  isPauseSignal,
  OUTBOUND_DISABLED_MESSAGE,
  type OutboundFrame,
  stringifyForDispatch,
  toolNotFoundEnvelope,
} from '@supolka/codemode-protocol/wire';
import type { PoolChild } from './child-handle.ts';
import type { HostCallMessage } from './child-messages.ts';
import type { PoolExecution } from './execution.ts';
import { loadSchemas } from './messages/schemas-on-demand.ts';
import type { PoolMessage, PoolMessageOf } from './messages/table.ts';
import { HostCallFrame, serveInContext } from './nested-executions.ts';

/**
 * Host calls a child's current run may have waiting on this process: its sandbox refuses a tool
 * call past IN_FLIGHT_CALL_LIMIT and a fetch request past it too, and this process counts a call
 * only until the caller's function answered, before the child does. More is a child not running
 * the sandbox, sending calls that would each run a caller's function and hold its answer here.
 */
export const HOST_CALL_LIMIT = 2 * IN_FLIGHT_CALL_LIMIT;

export const TOO_MANY_HOST_CALLS_MESSAGE = `it had more than ${HOST_CALL_LIMIT} host calls in flight, which its sandbox never allows`;

/** Why a child is ended that made a call for a run it is not running and holds no handles for. */
export function strayCallMessage(message: HostCallMessage): string {
  const kind = message.type === 'dispatch' ? 'a tool call' : 'an outbound request';
  return `it sent ${kind} for ${echo(message.id, ID_ECHO_LIMIT)}, a run it is not running and holds no handles for`;
}

/** The length of a run id a refusal quotes: the pool's own ids are a few characters. */
const ID_ECHO_LIMIT = 64;

/** Answers a call of a run whose handles closed as a settled run's call is answered. */
export function answerCompleted(child: PoolChild, message: HostCallMessage): void {
  const { id, call } = message;
  child.send(
    message.type === 'dispatch'
      ? { type: 'dispatchReply', id, call, frame: ['thrown', EXECUTION_COMPLETED_MESSAGE] }
      : { type: 'outboundReply', id, call, frame: ['thrown', EXECUTION_COMPLETED_MESSAGE] },
  );
}

/**
 * Serves one host call of `execution` and sends `child` the reply; `served` runs once the caller's
 * function answered, before the reply leaves.
 */
export function answerHostCall(
  child: PoolChild,
  execution: PoolExecution,
  message: HostCallMessage,
  served: () => void,
): void {
  const { id, call } = message;
  if (message.type === 'dispatch') {
    void serveDispatch(execution, message).then(({ frame, paused }) => {
      served();
      // A call that paused a durable run says so: the child ends the run, and hands back its
      // journal. This process keeps why (durable-calls.ts), so the child is told nothing more.
      const answer: PoolMessageOf<'dispatchReply'> = paused
        ? { type: 'dispatchReply', id, call, frame, paused: {} }
        : { type: 'dispatchReply', id, call, frame };
      reply(child, execution, answer, (text) => ({
        type: 'dispatchReply',
        id,
        call,
        frame: ['thrown', text],
      }));
    });
    return;
  }
  void serveOutbound(execution, message).then((frame) => {
    served();
    reply(child, execution, { type: 'outboundReply', id, call, frame }, (text) => ({
      type: 'outboundReply',
      id,
      call,
      frame: ['thrown', text],
    }));
  });
}

function reply(
  child: PoolChild,
  execution: PoolExecution,
  message: PoolMessage,
  tooLarge: (text: string) => PoolMessage,
): void {
  let sent: number;
  try {
    sent = child.send(message);
  } catch (error) {
    // Past PAYLOAD_LIMIT: the run meets the error instead of the answer.
    sent = child.send(tooLarge((error as Error).message));
  }
  if (execution.host.meter) execution.host.meter.bytesOut += sent;
}

/**
 * Serves a tool call: its frame, and whether it paused the run. A call of a durable run (one that
 * names its sequence, `durable`) runs in its durable context (durable-calls.ts), where pause() is
 * recorded.
 */
export async function serveDispatch(
  execution: PoolExecution,
  message: PoolMessageOf<'dispatch'>,
): Promise<{ frame: DispatchFrame; paused?: true }> {
  // A run the caller already cancelled, or whose handles closed, must not reach the caller's tools any more.
  if (!execution.servesCalls) return { frame: ['thrown', EXECUTION_COMPLETED_MESSAGE] };
  const dispatch = execution.host.dispatch;
  if (!dispatch) {
    return { frame: ['returned', toolNotFoundEnvelope(message.provider, message.tool)] };
  }
  const durable = execution.host.durable;
  const sequence = message.durable?.sequence;
  let paused = false;
  const perform = (): Promise<unknown> =>
    Promise.resolve(dispatch(message.provider, message.tool, message.args));
  const call =
    durable !== undefined && sequence !== undefined
      ? () =>
          durable.perform(sequence, perform, () => {
            paused = true;
          })
      : perform;
  let frame: DispatchFrame;
  try {
    const answer: unknown = await inCallContext(execution, call);
    frame =
      typeof answer === 'string'
        ? ['returned', answer]
        : [
            'thrown',
            `The dispatch function answered ${describeValue(answer)}, not the result envelope as JSON text.`,
          ];
  } catch (error) {
    // A tool's pause signal passes the providers' dispatch as a throw (executor/request.ts): it is
    // the tool's failure, the error envelope that dispatch would have answered, and in a durable
    // run's call the pause was recorded on its way (durable-calls.ts).
    frame = isPauseSignal(error)
      ? ['returned', stringifyForDispatch({ error: errorText(error) })]
      : ['thrown', errorText(error)];
  }
  return paused ? { frame, paused: true } : { frame };
}

export async function serveOutbound(
  execution: PoolExecution,
  message: PoolMessageOf<'outbound'>,
): Promise<OutboundFrame> {
  if (!execution.servesCalls) return ['thrown', EXECUTION_COMPLETED_MESSAGE];
  const outbound = execution.host.outbound;
  // Only a proxied run sends outbound messages; any other is refused as its mode says.
  if (!outbound) return ['thrown', OUTBOUND_DISABLED_MESSAGE];
  try {
    const response = await inCallContext(execution, () =>
      outbound(message.request, { signal: execution.endedSignal }),
    );
    // Checked here, so a malformed response fails the program's fetch and not the child's channel.
    const { protocol } = await loadSchemas();
    return ['returned', protocol.validate(protocol.HttpResponseSchema, response, 'outbound response')];
  } catch (error) {
    return ['thrown', errorText(error)];
  }
}

/**
 * A caller's function runs in the async context `execute` was called in, with a frame of its own
 * call: an `execute` it makes while the call is pending is nested in this execution, and one made
 * after it answered (from a timer or callback it left behind) is not (nested-executions.ts).
 */
async function inCallContext<T>(execution: PoolExecution, call: () => T): Promise<Awaited<T>> {
  const frame = new HostCallFrame(execution);
  try {
    return await execution.runInCaller(() => serveInContext(frame, call));
  } finally {
    frame.answered();
  }
}
