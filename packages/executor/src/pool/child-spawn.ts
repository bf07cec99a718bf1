/**
 * How a pool child process is spawned: the Node binary the caller runs, the children's flags, the
 * child's entry and its settings as one argument, the stdio whose fd 3 is the channel, and the
 * caller's environment over two malloc settings. PoolChild spawns every child from this, and a
 * command that starts its first child before it loads (early-child.ts) spawns that one from it too,
 * so the pool can tell whether the child already running is the one it would have started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ChildSettings, encodeSettings } from './settings.ts';

/** The stdio of a pool child: no stdin or stdout, stderr kept to explain its end, the channel at fd 3. */
export const CHILD_STDIO = ['ignore', 'ignore', 'pipe', 'pipe'] as const;

/**
 * The child entry sits in child/ beside the pool module (the process boundary is that folder):
 * `child-start.ts` when the pool was loaded from source (Node strips the types in the child too),
 * and from the build the same modules bundled into one file (scripts/bundle-child.mjs), which a
 * child loads in about 30 ms less CPU than the modules one by one.
 */
export function childEntryUrl(poolModuleUrl: string): URL {
  const fromSource = new URL(poolModuleUrl).pathname.endsWith('.ts');
  return new URL(fromSource ? './child/child-start.ts' : './child/child-start.bundle.js', poolModuleUrl);
}

/**
 * glibc's malloc keeps an arena per thread that allocates, up to eight per core, and an arena holds
 * on to what was freed in it. isolated-vm runs every isolate on threads of its own, so an isolate
 * disposed leaves its native memory spread over arenas the next one may not reuse: capped at two,
 * a child held 14 MB less after 1000 mixed executions (docs/pool.md, "Memory"). One execution runs
 * at a time, so there is no contention to lose. A caller's own MALLOC_ARENA_MAX wins; other C
 * libraries ignore the variable.
 */
export const CHILD_MALLOC_ARENA_MAX = '2';

/**
 * glibc raises its mmap threshold each time a large block is freed (up to 32 MB), and its trim
 * threshold with it to twice that, so after the first few large frees blocks of megabytes come
 * from the arenas and what is freed stays resident. A fixed threshold turns that off: blocks of
 * 128 KB and more are mapped and unmapped on their own, and free memory at an arena's top goes back
 * once past 128 KB. Measured in a child (docs/pool.md, "Memory"): 6 MB less after TypeScript
 * programs (the eraser thread's blocks), 10 MB less after mixed executions, and no change of speed
 * that stood out of the machine's noise. A caller's own value wins.
 */
export const CHILD_MALLOC_MMAP_THRESHOLD = '131072';

/** The environment of a child: the caller's, over the two glibc malloc settings above. */
export function childEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    MALLOC_ARENA_MAX: CHILD_MALLOC_ARENA_MAX,
    MALLOC_MMAP_THRESHOLD_: CHILD_MALLOC_MMAP_THRESHOLD,
    ...env,
  };
}

/**
 * What a child process is spawned as, in the ways that decide what snapshot its V8 can restore: the
 * Node binary, its flags and NODE_OPTIONS. A start is handed on only between children spawned as
 * the same (handed-start.ts); each child checks its own key anyway.
 */
export function spawnIdentity(execArgv: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  return JSON.stringify([process.execPath, execArgv, childEnvironment(env).NODE_OPTIONS ?? '']);
}

/** What decides a child process: its entry, its Node flags and its settings. */
export interface ChildFork {
  readonly entry: URL;
  readonly execArgv: readonly string[];
  readonly settings: ChildSettings;
}

/**
 * A child's arguments after the Node binary and its environment: all a spawn is made of but the
 * stdio. `folder` is the process's working folder as Node knows it when the command was made
 * (Node keeps the path it started in, and each process.chdir's; undefined when it cannot say, as
 * when the process started in a folder removed before): the child inherits the folder, and a
 * relative path among the flags or NODE_OPTIONS reads from it, so two commands are the same only
 * where both name the same folder.
 */
export interface ChildCommand {
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly folder: string | undefined;
}

/** The command a child of `fork` is spawned with, in a process whose environment is `env`. */
export function childCommand(fork: ChildFork, env: NodeJS.ProcessEnv = process.env): ChildCommand {
  return {
    args: [...fork.execArgv, fileURLToPath(fork.entry), encodeSettings(fork.settings)],
    env: childEnvironment(env),
    folder: workingFolder(),
  };
}

/** The process's working folder as Node knows it, or undefined when process.cwd() throws. */
function workingFolder(): string | undefined {
  try {
    return process.cwd();
  } catch {
    return undefined;
  }
}

/**
 * Whether two commands spawn the same child: the same arguments word for word, the same working
 * folder (read, both times) and the same environment, variable for variable.
 */
export function sameCommand(one: ChildCommand, other: ChildCommand): boolean {
  if (one.folder === undefined || one.folder !== other.folder) return false;
  if (one.args.length !== other.args.length || one.args.some((arg, index) => arg !== other.args[index])) {
    return false;
  }
  const names = Object.keys(one.env);
  if (names.length !== Object.keys(other.env).length) return false;
  return names.every((name) => Object.hasOwn(other.env, name) && one.env[name] === other.env[name]);
}

/**
 * Spawns a child (spawned, not forked: the channel is the pipe at fd 3, and no IPC channel is
 * opened). It inherits the working folder: one named would have to exist, and a process whose
 * folder was removed under it (Node still names it) could start no child at all.
 */
export function spawnChild(command: ChildCommand): ChildProcess {
  return spawn(process.execPath, [...command.args], { stdio: [...CHILD_STDIO], env: command.env });
}
