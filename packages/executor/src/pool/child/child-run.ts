/**
 * One execution as the child sees it: the crossings its sandbox run makes to the parent. A tool
 * call leaves as a `dispatch` message and its answer comes back as a `dispatchReply` frame; an
 * outbound request of a proxied run leaves as `outbound` and comes back as `outboundReply`. Calls
 * carry a number, so answers may arrive in any order. Both host-wait edges go to the parent too,
 * so the layer above pauses with the run.
 */
import type {
  DispatchFrame,
  HttpRequest,
  HttpResponse,
  OutboundFrame,
} from '@supolka/codemode-protocol/wire';
import { durableCall, pause } from '../../durable/pause.ts';
import type { MessageEndpoint } from '../channel.ts';
import type { ChildTestHooks } from '../settings.ts';
import { attackChannel } from './channel-attacks.ts';

export class ChildRun {
  readonly #id: string;
  readonly #parent: MessageEndpoint;
  readonly #hooks: ChildTestHooks;
  readonly #controller = new AbortController();
  readonly #dispatches = new Map<number, (frame: DispatchFrame, paused: boolean) => void>();
  readonly #outbounds = new Map<number, (frame: OutboundFrame) => void>();
  #calls = 0;

  readonly #catastrophe: () => void;

  /** `catastrophe` is what the catastrophicOnTool hook calls: the run's isolate's fatal out-of-memory. */
  constructor(id: string, parent: MessageEndpoint, hooks: ChildTestHooks = {}, catastrophe = () => {}) {
    this.#id = id;
    this.#parent = parent;
    this.#hooks = hooks;
    this.#catastrophe = catastrophe;
  }

  /** Aborting it ends the sandbox run at once with CANCELLED. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  cancel(): void {
    this.#controller.abort(new Error('its caller cancelled it'));
  }

  /**
   * The sandbox's dispatch function: resolves to the tool's envelope JSON, or throws the text of a
   * thrown frame. A durable run's call (made in its durable context, durable/pause.ts) names its
   * sequence, so the parent serves it in that context; when the parent says the tool paused the
   * run, the call pauses it here, in its own context, as a tool in this process would have.
   */
  readonly dispatch = async (provider: string, tool: string, args: string): Promise<string> => {
    if (tool === this.#hooks.channelAttackOnTool) {
      await attackChannel((JSON.parse(args) as unknown[])[0], this.#id);
    }
    this.#injectFault(tool);
    const call = this.#calls++;
    const sequence = durableCall()?.sequence;
    const [frame, paused] = await new Promise<[DispatchFrame, boolean]>((resolve) => {
      this.#dispatches.set(call, (frame, paused) => resolve([frame, paused]));
      try {
        this.#parent.send({
          type: 'dispatch',
          id: this.#id,
          call,
          provider,
          tool,
          args,
          ...(sequence !== undefined ? { durable: { sequence } } : {}),
        });
      } catch (error) {
        // Past PAYLOAD_LIMIT once framed: the sandbox turns the throw into a thrown frame.
        this.#dispatches.delete(call);
        resolve([['thrown', error instanceof Error ? error.message : String(error)], false]);
      }
    });
    if (paused) pause();
    if (frame[0] === 'thrown') throw new Error(frame[1]);
    return frame[1];
  };

  /**
   * The outbound function of the run's host part, which the sandbox calls only when the mode that
   * crossed the wire is `proxied`: the request crosses to the parent, which asks the caller.
   * The sandbox's own signal is not forwarded: the parent aborts the caller's when the run settles.
   */
  readonly outbound = async (request: HttpRequest): Promise<HttpResponse> => {
    const call = this.#calls++;
    const frame = await new Promise<OutboundFrame>((resolve) => {
      this.#outbounds.set(call, resolve);
      try {
        this.#parent.send({ type: 'outbound', id: this.#id, call, request });
      } catch (error) {
        this.#outbounds.delete(call);
        resolve(['thrown', error instanceof Error ? error.message : String(error)]);
      }
    });
    if (frame[0] === 'thrown') throw new TypeError(frame[1]);
    return frame[1];
  };

  readonly hostWaitChanged = (waiting: boolean): void => {
    this.#parent.send({ type: 'hostWait', id: this.#id, waiting });
  };

  /** Delivers an answer, and whether the call paused the run; one for a call this run does not wait on (any more) is dropped. */
  answerDispatch(call: number, frame: DispatchFrame, paused = false): void {
    const resolve = this.#dispatches.get(call);
    this.#dispatches.delete(call);
    resolve?.(frame, paused);
  }

  answerOutbound(call: number, frame: OutboundFrame): void {
    const resolve = this.#outbounds.get(call);
    this.#outbounds.delete(call);
    resolve?.(frame);
  }

  /** The run settled: answers still on their way are dropped on arrival. */
  end(): void {
    this.#dispatches.clear();
    this.#outbounds.clear();
  }

  /** Test-only faults in the child's own host code (settings.ts); inert unless a test set them. */
  #injectFault(tool: string): void {
    if (tool === this.#hooks.hangOnTool) {
      // A synchronous loop on the child's main thread: no heartbeat, no signal handler, no message.
      for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
    if (tool === this.#hooks.catastrophicOnTool) this.#catastrophe();
    if (tool === this.#hooks.exhaustMemoryOnTool) {
      const held: number[][] = [];
      for (;;) held.push(new Array(1 << 20).fill(held.length));
    }
  }
}
