/**
 * The pool's child process. It composes exactly one Sandbox, with a code cache of its own, and
 * serves the parent's messages over the channel (channel.ts): executions one at a time, heartbeats, cancels.
 *
 * The engine check starts here, at construction, and every heartbeat awaits it, so a child on an
 * engine that cannot serve the sandbox never reports healthy: its heartbeat is answered with a
 * fault naming why, and the reason reaches the caller instead of this process's stderr alone. The
 * sandbox is built from the report, so the fallbacks it selects are the ones the report names, and
 * it keeps an isolate prepared ahead of the next request. A child the parent hands an earlier
 * child's start to (awaitHandOn) takes its report and snapshot instead of making them, once they
 * pass their checks (hand-on-start.ts); a child asked for its own start commits to it in its first
 * healthy answer and sends its snapshot behind a later heartbeat answer (own-start.ts).
 *
 * Loaded by child-start.ts once isolated-vm proved loadable, in a process pool/child-handle.ts started as
 * `node --no-node-snapshot child/child-start settings`, the channel at fd 3, under the parent's own
 * Node; imported by nothing else.
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import {
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_TIMEOUT,
  decideOnDemand,
  type ExecuteRequest,
  echo,
  type FaultCode,
  handlesClosedMessage,
  isFaultCode,
  onDemand,
  REASON_ECHO_LIMIT,
} from '@supolka/codemode-protocol/wire';
import type { DurableStart, PausedJournal } from '../../durable/start.ts';
import { assertEngineServesSandbox, assertNoNodeSnapshot, type EngineReport } from '../../sandbox/isolate.ts';
import { BoundedCodeCache } from '../../sandbox/modules/code-cache.ts';
import { readRuntimeSnapshot } from '../../sandbox/runtime.ts';
import { type ExecuteResult, Sandbox, type SandboxHost } from '../../sandbox/sandbox.ts';
import { FRAMING_EXIT, openParentChannel } from '../channel.ts';
import type { StartReport } from '../messages/health.ts';
import type { PoolMessage, PoolMessageOf } from '../messages/table.ts';
import { type DecodedPoolMessage, encodePoolMessage } from '../messages/wire.ts';
import { parseSettings } from '../settings.ts';
import { keepStart, prepareKeep, startCacheFolder, startFromCache } from './cache-start.ts';
import { faultsHeartbeats, HEARTBEAT_ATTACK_TEXT, holdAttacksFor } from './channel-attacks.ts';
import { ChildRun } from './child-run.ts';
import { ConsoleStream } from './console-stream.ts';
import { startFromHandOn } from './hand-on-start.ts';
import { MemoryGuard } from './memory-guard.ts';
import { OwnStart } from './own-start.ts';
import { ISOLATE_SETTLE_BOUND, wedgedAfterDisposal } from './wedge.ts';

const settings = parseSettings(process.argv[2]);

/** The pool's message table with its schemas, loaded with the first message it must decide. */
const poolTable = onDemand(() => import('../messages/table.ts'));

/**
 * What the hot checks do not decide (an invoke, an outbound reply, anything malformed) is the
 * schemas' to decide, loaded with the first such message: a child at rest holds no zod.
 */
function decideBySchema(value: unknown): DecodedPoolMessage | Promise<DecodedPoolMessage> {
  return decideOnDemand(poolTable, (table) => table.validatePoolMessage(value));
}
const hooks = settings.testHooks ?? {};

const parent = openParentChannel(
  {
    received: (decoded) => {
      if (decoded.ok) handle(decoded.message);
      else {
        endHandOnWait(`the start handed on was refused: ${decoded.fault.message}`);
        parent.send({ type: 'fault', ...decoded.fault });
      }
    },
    // Nothing past a broken frame can be read, so this child can serve no more: it says why and ends.
    violation: (reason) =>
      parent.sendText(encodePoolMessage({ type: 'fault', code: 'BAD_REQUEST', message: reason }), () =>
        process.exit(FRAMING_EXIT),
      ),
    // The parent went away (or closed the channel): see shutdown.
    closed: () => shutdown(),
  },
  decideBySchema,
);

interface Ready {
  readonly engine: EngineReport;
  readonly sandbox: Sandbox;
  /** Whether it started from what the parent handed on, for the health report. */
  readonly start: StartReport;
}

/**
 * The start an earlier child made, which the parent sends first when the settings say so; or why
 * the first message was not one this child could take, and it starts on its own. Let go once taken
 * (startEngine): a settled promise kept here would hold the start's megabyte for the child's life.
 */
let handedOn: Promise<PoolMessageOf<'handOn'> | string> | undefined;
/** Settles handedOn; undefined once it did, or when no start comes. */
let settleHandOn: ((outcome: PoolMessageOf<'handOn'> | string) => void) | undefined;
if (settings.awaitHandOn === true) {
  handedOn = new Promise((resolve) => {
    settleHandOn = resolve;
  });
}

/** Ends the wait for the start handed on: with it, or with why it did not come. */
function endHandOnWait(outcome: PoolMessageOf<'handOn'> | string): void {
  const settle = settleHandOn;
  settleHandOn = undefined;
  settle?.(outcome);
}

/** The sandbox once built, and the resident size of this child when its first isolate was ready. */
let built: Sandbox | undefined;
/** The start this child made and the parent asked for (own-start.ts). */
let ownStart: OwnStart | undefined;
let resting = 0;
const guard = new MemoryGuard({
  parent,
  retained: () => built?.retainedCount ?? 0,
  // While retained executions hold isolates the floor rises no higher than the pool's recycling bound.
  floorCap: () => Math.max(resting, settings.rssLimit * 2 ** 20),
  grace: settings.grace,
});

// Started now and awaited by every heartbeat; the rejection is reported there, not as unhandled.
const ready: Promise<Ready> = startEngine().then(({ engine, start }) => {
  built = new Sandbox({
    engine,
    codeCache: new BoundedCodeCache(),
    ...(settings.warmPackages !== undefined ? { warmPackages: settings.warmPackages } : {}),
    // The pool prefers a child whose next isolate is ready (pool.ts, #idleChild).
    onPrepared: () => {
      if (resting === 0) resting = process.memoryUsage.rss();
      parent.send({ type: 'prepared' });
    },
    // A fatal out-of-memory in one isolate: the guard names its execution before the process ends.
    onCatastrophicError: guard.onCatastrophicError,
    // The pool drops its route at once, so the slot is free and the next invoke need not travel here.
    onRetainedClosed: (executionId, message) => {
      parent.send({ type: 'handlesClosed', executionId, message });
      void reportWedge();
    },
    // Its invocations' tool calls and fetches crossed to the parent as its run's; now none can.
    onRetainedEnded: (executionId) => {
      const id = retainedRuns.get(executionId);
      retainedRuns.delete(executionId);
      if (id === undefined) return;
      runs.get(id)?.end();
      runs.delete(id);
    },
  });
  return { engine, sandbox: built, start };
});
ready.catch(() => {});

/**
 * The runs whose calls the parent may answer, by the execute message's id: each running one, and
 * each that granted handles, until they close (its invocations call tools and fetch as that run).
 */
const runs = new Map<string, ChildRun>();
/** Executions running now (not the retained ones among `runs`). */
let running = 0;
/** The run behind each retained execution this child holds, by executionId. */
const retainedRuns = new Map<string, string>();
let executions = 0;
/** Whether this child answered a heartbeat healthy yet. */
let answeredHealthy = false;

/** Creates the file if nobody has: of the children sharing one path, exactly one claims it. */
function claimFile(path: string): boolean {
  try {
    closeSync(openSync(path, 'wx'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The engine report this child serves by, and where it came from: the start the parent handed on,
 * when it was handed one and it passed every check (hand-on-start.ts), the start an earlier
 * process's child kept on disk, when the settings name a cache and it passed the same checks
 * (cache-start.ts), or its own probes and snapshot (kept on disk then, for the next process).
 */
async function startEngine(): Promise<{ engine: EngineReport; start: StartReport }> {
  if (hooks.failEngineCheck !== undefined) throw new Error(hooks.failEngineCheck);
  if (hooks.failFirstEngineCheck !== undefined && claimFile(hooks.failFirstEngineCheck)) {
    throw new Error('this child claimed the failFirstEngineCheck marker');
  }
  let refused: string | undefined;
  let cacheRefused: string | undefined;
  // A start handed on comes first: it is already in memory. Without one, a start kept on disk.
  const cache = handedOn === undefined ? startCacheFolder(settings.startCache) : undefined;
  if (cache !== undefined) {
    const cached = startFromCache(cache);
    if (cached !== undefined && 'engine' in cached) {
      if (settings.handOnWanted === true) ownStart = OwnStart.of();
      return { engine: cached.engine, start: { snapshot: 'cached' } };
    }
    if (cached !== undefined) cacheRefused = echo(cached.refused, REASON_ECHO_LIMIT);
  }
  if (handedOn !== undefined) {
    const waiting = handedOn;
    handedOn = undefined;
    const handed = await waiting;
    if (typeof handed === 'string') refused = handed;
    else {
      const corrupt = hooks.corruptHandOn !== undefined && claimFile(hooks.corruptHandOn);
      const started = startFromHandOn(handed, corrupt);
      if ('engine' in started) return { engine: started.engine, start: { snapshot: 'handedOn' } };
      refused = started.refused;
    }
  }
  // Whether isolates run in this process at all comes before any isolate, the snapshot's included.
  assertNoNodeSnapshot();
  // The probes wait on the engine's threads while this one makes the snapshot (the Sandbox would
  // make it as it is built): on a quiet machine their time is mostly hidden behind it. Made now,
  // too, so that what this child commits to in its first healthy answer can be hashed.
  const probed = assertEngineServesSandbox();
  let snapshotFailure: { readonly error: unknown } | undefined;
  try {
    readRuntimeSnapshot();
  } catch (error) {
    snapshotFailure = { error };
  }
  // What the cache keeps is made ready while the probes still run.
  const keeping = cache !== undefined && snapshotFailure === undefined ? prepareKeep() : undefined;
  // A probe's failure is said first, as when the snapshot came after the probes.
  const engine = await probed;
  if (snapshotFailure !== undefined) throw snapshotFailure.error;
  if (settings.handOnWanted === true || refused !== undefined) {
    ownStart = OwnStart.of(hooks.foreignHandOn !== undefined && claimFile(hooks.foreignHandOn));
  }
  // Kept before the first healthy answer, so before any program ran here: what the next process
  // reads is what this package's own code made. A damaged or foreign entry is replaced by it.
  if (cache !== undefined) keepStart(cache, engine, keeping);
  return {
    engine,
    start: {
      snapshot: 'built',
      ...(refused !== undefined ? { refused: echo(refused, REASON_ECHO_LIMIT) } : {}),
      ...(cacheRefused !== undefined ? { cacheRefused } : {}),
    },
  };
}

/**
 * Sends the snapshot this child committed to (own-start.ts), behind a heartbeat answer after its
 * first that finds it idle (or after a few that found it busy): not on the way of an execution and
 * its answer, and never for a caller that ends the pool right after its first answer (a command's
 * one program). Under the channel attack hook, whose raw bytes would cut into it, attacks wait for it.
 */
function sendOwnStart(): void {
  if (ownStart === undefined || !ownStart.due(running === 0)) return;
  const written = ownStart.send(parent);
  if (hooks.channelAttackOnTool !== undefined) holdAttacksFor(written);
}

function handle(message: PoolMessage): void {
  if (message.type !== 'handOn')
    endHandOnWait(`the parent's first message was ${message.type}, not the start it announced`);
  switch (message.type) {
    case 'heartbeat':
      void answerHeartbeat(message.id);
      return;
    case 'execute':
      void execute(message.id, message.request, {
        reportHostWaits: message.reportHostWaits === true,
        streamConsole: message.streamConsole === true,
        durable: message.durable,
      });
      return;
    case 'dispatchReply':
      runs.get(message.id)?.answerDispatch(message.call, message.frame, message.paused !== undefined);
      return;
    case 'outboundReply':
      runs.get(message.id)?.answerOutbound(message.call, message.frame);
      return;
    case 'cancel':
      runs.get(message.id)?.cancel();
      return;
    case 'invoke':
      void invoke(message);
      return;
    case 'closeHandles':
      void closeHandles(message);
      return;
    case 'packages':
      // Before any execution that follows it on the channel: their `await ready` comes after this one.
      ready.then(({ sandbox }) => sandbox.usePackages(message.bundle)).catch(() => {});
      return;
    case 'handOn':
      // Taken once, as the first message, when the settings said one comes.
      if (settleHandOn !== undefined) endHandOnWait(message);
      else refuse(message);
      return;
    default:
      refuse(message);
  }
}

function refuse(message: PoolMessage): void {
  parent.send({
    type: 'fault',
    ...('id' in message && message.id !== undefined ? { id: message.id } : {}),
    code: 'BAD_REQUEST',
    message: `A pool child does not accept ${message.type} messages.`,
  });
}

async function answerHeartbeat(id: string): Promise<void> {
  // The attack waits for the run that set it off to answer: its test reads that answer, then the end.
  if (faultsHeartbeats() && running === 0) {
    parent.send({ type: 'fault', id, code: 'INTERNAL', message: HEARTBEAT_ATTACK_TEXT });
    return;
  }
  let engine: EngineReport;
  try {
    ({ engine } = await ready);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    parent.send({
      type: 'fault',
      id,
      code: 'INTERNAL',
      message: `The engine cannot serve the sandbox: ${reason}`,
    });
    return;
  }
  const { sandbox, start } = await ready;
  // The first healthy answer commits to this child's snapshot: no program has run here yet.
  const committed = !answeredHealthy && ownStart !== undefined ? ownStart.commitment : {};
  parent.send({
    type: 'health',
    id,
    engine: { ...engine, fallbacks: [...engine.fallbacks] },
    rss: process.memoryUsage.rss(),
    executions,
    retained: sandbox.retainedCount,
    working: sandbox.retainedWorking,
    start: { ...start, ...committed },
  });
  // Not behind the first answer: the first execution is likely on its way.
  if (answeredHealthy) sendOwnStart();
  answeredHealthy = true;
}

async function execute(
  id: string,
  request: ExecuteRequest,
  {
    reportHostWaits,
    streamConsole,
    durable,
  }: { reportHostWaits: boolean; streamConsole: boolean; durable: DurableStart | undefined },
): Promise<void> {
  running++;
  const run = new ChildRun(id, parent, hooks, guard.catastropheInRun);
  const stream = streamConsole ? new ConsoleStream(id, parent) : undefined;
  runs.set(id, run);
  let envelope: ExecuteResult;
  let paused: PausedJournal | undefined;
  try {
    const { sandbox } = await ready;
    guard.beginRun(id, request.memoryLimit ?? DEFAULT_MEMORY_LIMIT, request.timeout ?? DEFAULT_TIMEOUT);
    // The wire request goes down as it arrived; the host part is this child's: the parent serves
    // the tools and a proxied run's fetches, and the settings hold the address opt-ins.
    const host: SandboxHost = {
      dispatch: run.dispatch,
      outbound: run.outbound,
      allowLinkLocal: settings.allowLinkLocal,
      allowLoopback: settings.allowLoopback,
      allowPrivate: settings.allowPrivate,
      ownEndpoints: settings.ownEndpoints,
      grace: settings.grace,
      // Two messages per tool call nobody reads cost about a fifth of a pooled call: sent only when asked.
      ...(reportHostWaits ? { onHostWaitChanged: run.hostWaitChanged } : {}),
      ...(stream ? { onConsole: stream.push } : {}),
      signal: run.signal,
    };
    if (durable === undefined) envelope = await sandbox.execute(request, host);
    else {
      // A durable run from the parent's start; a pause's journal goes back unsealed (durable/start.ts).
      const end = await sandbox.runDurable(request, host, durable);
      envelope = end.envelope;
      paused = end.paused?.journal;
    }
  } catch (error) {
    // The sandbox resolves where user code is at fault; a rejection is a defect of this process.
    envelope = {
      result: undefined,
      error: `The worker failed: ${String(error)}`,
      code: 'INTERNAL',
      logs: [],
    };
  } finally {
    guard.endRun(id);
    executions++;
  }
  if (envelope.executionId !== undefined) retainedRuns.set(envelope.executionId, id);
  else {
    run.end();
    runs.delete(id);
  }
  // Only a run ended at its bound or by its caller can leave its isolate running: one that
  // answered finished its work, and the memory limit's disposal is the engine's own.
  if (envelope.code === 'TIMEOUT' || envelope.code === 'CANCELLED') await reportWedge(id);
  // Every streamed line reaches the parent before the result that ends the conversation.
  stream?.flush();
  sendResult(id, envelope, paused);
  running--;
  // The wedge check gives the sandbox time to prepare the next isolate before the answer leaves,
  // and the parent drops a `prepared` that arrives while this run is its current one (pool.ts,
  // #prepared): said again after the answer, or the child reads unprepared while it is ready.
  if (built?.preparedMemoryLimit !== undefined) parent.send({ type: 'prepared' });
}

/**
 * Tells the parent, before the answer that would free this child, when an isolate it disposed is
 * still running (wedge.ts): the parent then gives it no more work and ends it once `id`, the run or
 * invocation whose answer follows, is answered (none follows a retained execution's timer bound).
 */
async function reportWedge(id?: string): Promise<void> {
  if (!(await wedgedAfterDisposal())) return;
  parent.send({ type: 'wedged', settle: ISOLATE_SETTLE_BOUND, ...(id !== undefined ? { id } : {}) });
  if (hooks.holdAnswerAfterWedge !== undefined) await fileExists(hooks.holdAnswerAfterWedge);
}

/** Resolves once a file exists at `path`, looking every few milliseconds (the holdAnswerAfterWedge hook). */
async function fileExists(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Invokes a retained execution this child holds; a failure crosses as a fault with its code. */
async function invoke(message: PoolMessageOf<'invoke'>): Promise<void> {
  guard.beginInvoke(message.id, message.executionId);
  try {
    const { sandbox } = await ready;
    const response = await sandbox.invoke(message.executionId, message.request, message.handle);
    parent.sendText(encodePoolMessage({ type: 'invokeResult', id: message.id, response }));
  } catch (error) {
    const fault = faultOf(error);
    // An invocation past its bound disposed its retained execution's isolate, as a run's end does.
    if (fault.code === 'TIMEOUT') await reportWedge(message.id);
    parent.send({ type: 'fault', id: message.id, ...fault });
  } finally {
    guard.endInvoke(message.id, message.executionId);
  }
}

async function closeHandles(message: PoolMessageOf<'closeHandles'>): Promise<void> {
  const { sandbox } = await ready;
  if (sandbox.closeHandles(message.executionId)) parent.send({ type: 'ack', id: message.id });
  else {
    parent.send({
      type: 'fault',
      id: message.id,
      code: 'HANDLES_CLOSED',
      message: handlesClosedMessage(message.executionId),
    });
  }
}

function faultOf(error: unknown): { code: FaultCode; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return { code: isFaultCode(code) ? code : 'INTERNAL', message };
}

/**
 * Sends the envelope, with a paused durable run's journal; one that does not fit in a message is
 * replaced by the error saying so.
 */
function sendResult(id: string, envelope: ExecuteResult, paused?: PausedJournal): void {
  const message: PoolMessageOf<'result'> =
    paused === undefined
      ? { type: 'result', id, envelope }
      : { type: 'result', id, envelope, journal: paused };
  let text: string;
  try {
    text = encodePoolMessage(message);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    text = encodePoolMessage({
      type: 'result',
      id,
      envelope: { error: reason, code: 'PAYLOAD_TOO_LARGE', logs: [] },
    });
  }
  parent.sendText(text);
}

/**
 * The parent retired or replaced this child (SIGTERM), or went away (the channel closed). Every
 * isolate lives in this process and goes with it, so there is nothing to drain but a snapshot
 * already leaving for the parent.
 */
function shutdown(): void {
  // A snapshot still leaving (own-start.ts) is let go first: its parent, retiring this child,
  // keeps it for the next. One not sent yet stays here. SIGKILL follows a child that takes too long.
  if (ownStart?.written === undefined) process.exit(0);
  else void ownStart.written.then(() => process.exit(0));
}
process.on('SIGTERM', shutdown);
