/**
 * Why a child ended, in words a caller can act on: the cause of WORKER_LOST. A child that died of
 * memory says so, because the fix (a smaller program, a lower memoryLimit, fewer children) differs
 * from the fix for a crash or a hang.
 */
import { FAILED_TERMINATION_TEXT } from './catastrophe.ts';

/** Why the pool ends a child that said an isolate it disposed still runs (wedge.ts). */
export const WEDGED_REASON =
  'an isolate it disposed kept running guest code (a builtin the engine cannot interrupt), so it takes no more work';

/** What the pool itself did to the child, when it ended it on purpose. */
export interface Termination {
  readonly reason: string;
  /** Whether SIGKILL had to follow the SIGTERM. */
  killed: boolean;
  /** Whether the pool sent SIGKILL alone, with no SIGTERM first. */
  readonly direct?: boolean;
}

export interface ChildEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last of what the child wrote to stderr. */
  readonly stderr: string;
  readonly termination?: Termination | undefined;
  /** Resident memory at the last heartbeat, in bytes. */
  readonly lastRss?: number | undefined;
  /** What the child said before it ended itself (memory-guard.ts). */
  readonly lastWords?:
    | { readonly type: 'outOfMemory'; readonly cause: 'engine' | 'backstop' }
    | { readonly type: 'timedOut' }
    | undefined;
}

// V8's own fatal heap errors, and the engine's catastrophic-error report (sandbox/isolate.ts).
const MEMORY_DEATH =
  /JavaScript heap out of memory|Reached heap limit|Fatal process out of memory|Cannot allocate memory/i;
const CATASTROPHIC = /catastrophic engine error/i;
// The child's resident-memory backstop (memory-guard.ts, backstopLine).
const BACKSTOP = /^memory backstop: /;

/** How a child that found isolated-vm unable to serve starts its one line (child/child-start.ts). */
export const ADDON_LINE = 'engine addon: ';

export function describeEnd(end: ChildEnd): string {
  const how = end.signal ? `ended on ${end.signal}` : `exited with code ${end.code}`;
  if (end.termination) {
    const { reason, killed, direct } = end.termination;
    if (direct) return `${reason}; the pool ended it with SIGKILL`;
    return killed
      ? `${reason}; the pool sent SIGTERM, and SIGKILL when that went unanswered`
      : `${reason}; the pool ended it with SIGTERM`;
  }
  // The child's own sentence names the cause and the fix: nothing about the process adds to it.
  const addon = lineMatching(end.stderr, new RegExp(`^${ADDON_LINE}`));
  if (addon) return addon.slice(ADDON_LINE.length);
  const backstop = lineMatching(end.stderr, BACKSTOP);
  if (backstop)
    return `its ${backstop.replace(BACKSTOP, 'memory backstop ended it: ')}, and the process ${how}`;
  if (end.lastWords?.type === 'outOfMemory' && end.lastWords.cause === 'engine') {
    return `an isolate in it ran out of memory (V8's fatal out-of-memory error), and the process ${how}`;
  }
  if (end.lastWords?.type === 'timedOut') {
    return `the engine could not stop an isolate in it that ran past its time bound (isolated-vm: ${FAILED_TERMINATION_TEXT}), and the process ${how}`;
  }
  const memory = lineMatching(end.stderr, MEMORY_DEATH);
  if (memory) return `its process ran out of memory (${memory}) and ${how}`;
  const catastrophic = lineMatching(end.stderr, CATASTROPHIC);
  if (catastrophic) {
    // The engine's own text says what failed: kept, since no code names it.
    const text = catastrophic.replace(/^.*?ending the process: /, '');
    return `isolated-vm reported a catastrophic engine error (${text}), and the process ${how}`;
  }
  if (end.signal === 'SIGKILL') {
    const rss = end.lastRss
      ? `; its resident memory was ${Math.round(end.lastRss / 2 ** 20)} MB at the last heartbeat`
      : '';
    return `its process was killed with SIGKILL from outside the pool (the system's out-of-memory killer sends this signal too${rss})`;
  }
  const written = firstError(end.stderr);
  return written ? `its process ${how} after writing: ${written}` : `its process ${how}`;
}

function lineMatching(text: string, pattern: RegExp): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim())
    .find((line) => pattern.test(line));
}

// The line an uncaught error's report starts with: `Error: text`, `TypeError [ERR_CODE]: text`.
const ERROR_START = /^(?:[A-Za-z_$][\w$]*)?(?:Error|Exception)(?: \[[\w$]+\])?: \S/;
// What Node prints after every uncaught error's report, so it says nothing of the cause.
const NODE_FOOTER = /^Node\.js v\d/;

/**
 * The first error the process wrote, with the lines its message continues on, up to its stack:
 * Node writes the throwing source line before it and its own version after it, neither of which
 * says what failed. With no such line, the last line Node did not add.
 */
function firstError(text: string): string | undefined {
  const lines = text.split('\n').map((line) => line.trim());
  const start = lines.findIndex((line) => ERROR_START.test(line));
  if (start < 0) return lines.filter((line) => line !== '' && !NODE_FOOTER.test(line)).at(-1);
  const message = [lines[start] as string];
  for (const line of lines.slice(start + 1)) {
    if (line === '' || line.startsWith('at ') || line.startsWith('{') || NODE_FOOTER.test(line)) break;
    message.push(line);
  }
  return message.join(' ');
}
