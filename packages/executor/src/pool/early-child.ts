/**
 * A pool child started by a command before the command loads its own modules, and taken over by the
 * pool once the command constructs it (docs/pool.md, "The first child, started early"). A child's
 * start (Node's own, the engine's, the runtime's snapshot) and the command's import run one after
 * the other otherwise, on a machine whose second core sits idle meanwhile.
 *
 * The child is spawned exactly as the pool's first child would be (child-spawn.ts), so taking it
 * over changes nothing but when it started: the pool takes it only when the command it would spawn
 * is this one's, word for word and variable for variable. Any other (an option that reaches the
 * children, a changed environment) ends it, and the pool spawns its own. Until it is taken the
 * child holds the command's process open by nothing, and a command that ends without a pool (a
 * usage error, a file that is not there) ends it as it exits; it would end anyway once its channel
 * closed.
 *
 * One per process, taken at most once: the first PoolChild of the process asks, whatever pool it
 * belongs to.
 */
import type { ChildProcess } from 'node:child_process';
import {
  type ChildCommand,
  type ChildFork,
  childCommand,
  childEntryUrl,
  sameCommand,
  spawnChild,
} from './child-spawn.ts';

interface EarlyChild {
  readonly process: ChildProcess;
  readonly command: ChildCommand;
  /** performance.now() at its spawn: its start timeout counts from there. */
  readonly spawnedAt: number;
}

/**
 * The process's one early child, and whether one was started (taken or not: there is one chance),
 * kept on the global object rather than in this module: a command whose pool comes from another
 * copy of this package (a bridge installed with its own) meets it there, finds it is not the child
 * it would spawn (the entry differs) and ends it, where a second copy of this module would leave it
 * idle for the command's life. Nothing an isolate runs reaches this object.
 */
interface EarlySlot {
  early: EarlyChild | undefined;
  started: boolean;
}
const SLOT = Symbol.for('@supolka/codemode-executor/early-child');

function earlySlot(): EarlySlot {
  const holder = globalThis as { [SLOT]?: EarlySlot };
  holder[SLOT] ??= { early: undefined, started: false };
  return holder[SLOT];
}

/**
 * Spawns the child a pool of `fork` would spawn first, unless this process already started one;
 * answers its pid, or undefined when none was started. The child's entry is the pool's (this module
 * sits beside it).
 */
export function startEarlyChild(fork: Omit<ChildFork, 'entry'>): number | undefined {
  const slot = earlySlot();
  if (slot.started) return undefined;
  slot.started = true;
  const command = childCommand({ ...fork, entry: childEntryUrl(import.meta.url) });
  let child: ChildProcess;
  try {
    child = spawnChild(command);
  } catch {
    // Refused at once (E2BIG, ENOMEM): the pool spawns its own and meets the failure itself.
    return undefined;
  }
  // Refused later (EMFILE, ENOENT, EAGAIN): reported here, once, and the pool spawns its own. A
  // process that did not start has no pipes either.
  child.on('error', () => {});
  if (child.pid === undefined) return undefined;
  setReferenced(child, false);
  slot.early = { process: child, command, spawnedAt: performance.now() };
  process.once('exit', () => {
    if (slot.early?.process === child) child.kill('SIGKILL');
  });
  return child.pid;
}

/**
 * The child started early, when it is alive and `command` is the one it was spawned with; it is
 * the caller's from then on. Any other ends it. Answers undefined after the first call.
 */
export function adoptEarlyChild(
  command: ChildCommand,
): Pick<EarlyChild, 'process' | 'spawnedAt'> | undefined {
  const slot = earlySlot();
  const taken = slot.early;
  slot.early = undefined;
  if (taken === undefined) return undefined;
  const { process: child } = taken;
  const running = child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  if (running && sameCommand(taken.command, command)) {
    setReferenced(child, true);
    return taken;
  }
  // It ran nothing of anyone's: its start, at most. Its handles go with it.
  if (running) child.kill('SIGKILL');
  return undefined;
}

/** Whether the child's process and pipes keep this process's event loop alive. */
function setReferenced(child: ChildProcess, referenced: boolean): void {
  const handles = [child, child.stderr, child.stdio?.[3]] as (
    | { ref?(): void; unref?(): void }
    | null
    | undefined
  )[];
  for (const handle of handles) {
    if (referenced) handle?.ref?.();
    else handle?.unref?.();
  }
}
