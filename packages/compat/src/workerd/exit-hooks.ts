/**
 * Last-resort cleanup for child processes: whatever ends this process (a normal exit, an uncaught
 * exception, SIGINT, SIGTERM, SIGHUP), every registered cleanup (a kill, a temporary directory
 * removed) runs first. Only SIGKILL of
 * this process escapes it; nothing a process does can run then.
 */

type Kill = () => void;

const kills = new Set<Kill>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let installed = false;

function killAll(): void {
  for (const kill of kills) {
    try {
      kill();
    } catch {
      // The child may already be gone; the others still need their kill.
    }
  }
  kills.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  // When nobody else handles the signal, restore its default (terminate) and re-raise it, so the
  // process ends the way it would have without this hook. A runner with its own handler (vitest)
  // goes on with its own shutdown, and its teardown finds the children already stopped.
  process.removeListener(signal, onSignal);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  // 'exit' listeners run synchronously: a kill (a signal sent) is all that fits there, and all
  // that is needed. It covers process.exit() and an uncaught exception alike.
  process.on('exit', killAll);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/** Registers a synchronous kill; the returned function unregisters it. */
export function onProcessExit(kill: Kill): () => void {
  install();
  kills.add(kill);
  return () => {
    kills.delete(kill);
  };
}
