/**
 * An isolate made ready ahead of its request: restored from the snapshot, its context created and
 * every install script run, in the chapter's order (console, runtime, timers, dispatch). Nothing
 * here depends on a request. What does (the console sink, the dispatch function, the outbound
 * choice, the run clock) reaches the isolate through the slots below, which the host references
 * read on every call and Sandbox.execute fills, in the chapter's order, when a request arrives.
 * An isolate serves exactly one execution, prepared or not.
 */
import { type ConsoleFormat, MISSING_SNAPSHOT_MESSAGE } from '@supolka/codemode-protocol/wire';
import ivm from 'isolated-vm';
import type { SeededRandom } from '../../durable/random.ts';
import { ClockSlot } from '../bounds/clock.ts';
import type { ConsoleCapture } from '../console.ts';
import { subtleReference } from '../crypto.ts';
import { createDispatchState, type DispatchState, dispatchReference } from '../dispatch.ts';
import { INTERNAL_FILENAME, INTERNAL_MODULE_SOURCE } from '../entry/internal-module.ts';
import { type ReportedFailure, readFailure } from '../errors/reported-failure.ts';
import { hostSendRequest, type Performer } from '../fetch.ts';
import { type CatastrophicErrorHandler, createIsolate, type IsolateHandle } from '../isolate.ts';
import { noteLost } from '../lost-values.ts';
import { loaderReference } from '../modules/loader.ts';
import { BodyBudget, bodyBudgetFor } from '../outbound/body-budget.ts';
import { type RuntimeReferences, randomReferences, readRuntimeSnapshot } from '../runtime.ts';
import { never, TimerRegistry } from '../timers.ts';
import { pieceSource } from './pieces.ts';

/** Per-run state the host references consult on every call. */
export interface RunSlots {
  console: ConsoleCapture | undefined;
  readonly clock: ClockSlot;
  readonly dispatch: DispatchState;
  readonly timers: TimerRegistry;
  /** Whether the entry's body has started the run. */
  started: boolean;
  /** Loader roots that reported their module evaluated. */
  readonly loaded: Set<number>;
  /** Resolves the isolate's __timeoutExpired. */
  expire: () => void;
  /** How this run's fetch reaches the network; undefined until a request arrives and after it ends. */
  outbound: Performer | undefined;
  /** A durable run's random source (durable/random.ts); undefined for other runs, which draw from the host's. */
  random: SeededRandom | undefined;
  /** Cancels every outbound request still in flight. */
  abortOutbound: () => void;
  /** Settles with what the entry assigned to __resultJson, the moment it does. */
  readonly delivered: Promise<unknown>;
  /**
   * What the run's own machinery said of the failure it reports, when the envelope it delivered
   * is a failure; undefined when the program assigned the envelope itself (docs/sandbox.md).
   */
  deliveredFailure: ReportedFailure | undefined;
  /** Switches the console to workerd's format (consoleFormat 'inspect'), before any of the request's code runs. */
  consoleFormat: (format: ConsoleFormat) => void;
  /** Where this run's notes go (lost-values.ts), set when a request arrives. */
  notes: string[] | undefined;
}

export interface PreparedIsolate {
  readonly handle: IsolateHandle;
  readonly slots: RunSlots;
  /** The sandbox's own module, evaluated; the entry imports from it. */
  readonly internal: ivm.Module;
}

export interface PrepareOptions {
  readonly memoryLimit: number;
  readonly onCatastrophicError?: CatastrophicErrorHandler;
  /** References the runtime issue adds to the handshake (outbound, crypto), beside randomness. */
  readonly references?: (slots: RunSlots, handle: IsolateHandle) => Partial<RuntimeReferences>;
}

export function prepareIsolate(options: PrepareOptions): PreparedIsolate {
  const handle = createIsolate({
    memoryLimit: options.memoryLimit,
    snapshot: readRuntimeSnapshot(),
    ...(options.onCatastrophicError ? { onCatastrophicError: options.onCatastrophicError } : {}),
  });
  try {
    let expire: () => void = () => {};
    const expired = new Promise<void>((resolve) => {
      expire = resolve;
    });
    let deliver: (answer: unknown) => void = () => {};
    const delivered = new Promise<unknown>((resolve) => {
      deliver = resolve;
    });
    const slots: RunSlots = {
      console: undefined,
      clock: new ClockSlot(),
      dispatch: createDispatchState(),
      timers: new TimerRegistry(),
      started: false,
      loaded: new Set(),
      expire: () => expire(),
      delivered,
      deliveredFailure: undefined,
      notes: undefined,
      consoleFormat: () => {},
      outbound: undefined,
      random: undefined,
      abortOutbound: () => {},
    };
    // The failure the run support reported last; read when the envelope arrives.
    let reported: ReportedFailure | undefined;
    const outbound = hostSendRequest(
      () => slots.outbound,
      () => !handle.isolate.isDisposed,
      new BodyBudget(bodyBudgetFor(options.memoryLimit)),
      // A durable run's requests go through its session, which journals or replays them.
      () => slots.dispatch.durable,
    );
    slots.abortOutbound = outbound.abortAll;
    const runtime: RuntimeReferences = {
      ...randomReferences(() => slots.random),
      performSubtleOperation: subtleReference(handle, () => slots.dispatch.durable !== undefined),
      sendRequest: new ivm.Reference(outbound.send),
      loadPiece: new ivm.Reference(pieceSource),
      ...options.references?.(slots, handle),
    };
    // Every install step is one call of the snapshot's __prepareSandbox (sandbox-source.ts), with
    // the host reference each step needs: no reference is ever published under a global name.
    const prepare = handle.jail.getSync('__prepareSandbox', { reference: true }) as ivm.Reference<
      (...references: unknown[]) => { answerDispatch: unknown; consoleFormat: unknown }
    >;
    if (prepare.typeof !== 'function') throw new Error(MISSING_SNAPSHOT_MESSAGE);
    // The isolate's function that answers a tool call, known once the preparation returned it.
    let answerDispatch: ivm.Reference | undefined;
    const answerCall = (call: number, answer: string | number, time?: number) => {
      try {
        if (time === undefined) {
          answerDispatch?.applyIgnored(undefined, [call, answer]);
          return undefined;
        }
        // A durable run's settlement: the isolate answers the sequence it observed it under.
        return answerDispatch?.apply(undefined, [call, answer, time]) as
          | Promise<number | undefined>
          | undefined;
      } catch {
        // The isolate is gone: nothing waits for this answer.
        return undefined;
      }
    };
    const installed = prepare.applySync(
      undefined,
      [
        new ivm.Reference(
          (level: 'log' | 'warn' | 'error', text: string | number) =>
            slots.console?.push(level, text) ?? true,
        ),
        // The limit crosses beside the references: the runtime bounds by it what the engine's limit
        // does not meter (resizable buffers, WebAssembly memories).
        new ivm.ExternalCopy({ ...runtime, memoryLimit: options.memoryLimit }).copyInto(),
        new ivm.Reference((ms: number | 'observed', count?: number, sequence?: number) => {
          // A durable run's expiry, observed: the session journals it and answers the clock's time.
          if (ms === 'observed')
            return slots.dispatch.durable?.timerObserved(count as number, sequence as number);
          const real = async () => {
            const expired = await slots.timers.delay(ms);
            // No settlement may reach a dead isolate: it would run a callback no execution owns.
            return handle.isolate.isDisposed ? never<number>() : expired;
          };
          const durable = slots.dispatch.durable;
          return durable === undefined ? real() : durable.delay(ms, real);
        }),
        new ivm.Reference(dispatchReference(slots.dispatch, answerCall)),
        new ivm.Reference(loaderReference(handle, () => slots.dispatch.durable)),
        new ivm.Reference(() => expired),
        new ivm.Reference((answer: unknown) => {
          // The completion accessor delivers once; the failure reported just before belongs to it.
          slots.deliveredFailure = reported;
          deliver(answer);
        }),
        new ivm.Reference(
          (kind: 'started' | 'loaded' | 'failed' | 'note' | 'notesOverflowed', ...values: unknown[]) => {
            if (kind === 'started') slots.started = true;
            else if (kind === 'failed') reported = readFailure(values[0], ...values.slice(1));
            else if (kind === 'note' || kind === 'notesOverflowed') {
              if (slots.notes !== undefined) noteLost(slots.notes, kind === 'note' ? values[0] : undefined);
            } else if (typeof values[0] === 'number') slots.loaded.add(values[0]);
          },
        ),
      ],
      { result: { reference: true } },
    ) as unknown as ivm.Reference<{ answerDispatch: unknown; consoleFormat: unknown }>;
    answerDispatch = installed.getSync('answerDispatch', { reference: true }) as ivm.Reference;
    const consoleFormat = installed.getSync('consoleFormat', { reference: true }) as ivm.Reference;
    slots.consoleFormat = (format) => {
      consoleFormat.applySync(undefined, [format]);
    };
    installed.release();
    prepare.release();
    const internal = handle.isolate.compileModuleSync(INTERNAL_MODULE_SOURCE, {
      filename: INTERNAL_FILENAME,
    });
    internal.instantiateSync(handle.context, () => {
      throw new Error('The sandbox module imports nothing.');
    });
    internal.evaluateSync();
    return { handle, slots, internal };
  } catch (error) {
    handle.isolate.dispose();
    throw error;
  }
}
