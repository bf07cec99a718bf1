// Usage: node tools/turbo-recap.mjs <turbo arguments...>
//
// Runs turbo as given and passes its output through unchanged. When a task fails, it then prints
// again, after everything else, what that task's test runner said about the failure, and turbo's
// summary last. Why: the test command runs up to four tasks at once, and the Node 26 lane runs after
// the rest, so a failure's own lines scroll far above the end of the log, and a CI that keeps only
// the end of what a run printed showed "test:pack failed" with none of the reason (stop 32).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

/** Lines kept per task for one whose runner printed no failure section: the end of its output. */
const TAIL = 60;
/** At most this many of a task's failure lines are printed again, so the recap stays readable. */
const FAILURE_LINES = 600;

// Turbo prefixes each task's lines with "<package>:<task>: " in stream mode.
const PREFIX = /^(\S+?:[\w:-]+): (.*)$/;
// A vitest run's report of failures opens with one of these and ends at its summary.
const OPENS = /Failed Tests|Failed Suites|Unhandled Errors|Unhandled Rejection|\bFAIL\b/;
const CLOSES = /Test Files/;
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

const require = createRequire(import.meta.url);
const turbo = require.resolve('turbo/bin/turbo');
const child = spawn(process.execPath, [turbo, ...process.argv.slice(2)], {
  stdio: ['inherit', 'pipe', 'pipe'],
});

/** Per task: its failure sections' lines, whether one is open, and its last lines. */
const tasks = new Map();
const summary = [];

function record(line) {
  const match = PREFIX.exec(line);
  if (match === null) {
    // Turbo's own summary lines carry no prefix; the recap ends with them again.
    if (/^\s*(Tasks|Cached|Time|Failed):/.test(line.replace(ANSI, ''))) summary.push(line);
    return;
  }
  const [, task, text] = match;
  let state = tasks.get(task);
  if (state === undefined) {
    state = { failure: [], open: false, tail: [] };
    tasks.set(task, state);
  }
  const plain = text.replace(ANSI, '');
  if (!state.open && OPENS.test(plain)) state.open = true;
  if (state.open && state.failure.length < FAILURE_LINES) state.failure.push(line);
  if (state.open && CLOSES.test(plain)) state.open = false;
  state.tail.push(line);
  if (state.tail.length > TAIL) state.tail.shift();
}

function pipe(stream, out) {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    out.write(`${line}\n`);
    record(line);
  });
}
pipe(child.stdout, process.stdout);
pipe(child.stderr, process.stderr);

child.on('close', (code, signal) => {
  const failed = summary
    .map((line) => line.replace(ANSI, ''))
    .filter((line) => /^\s*Failed:/.test(line))
    .flatMap((line) => line.replace(/^\s*Failed:\s*/, '').split(/,\s*/))
    .map((name) => name.trim().replace('#', ':'))
    .filter((name) => name !== '');
  if (code !== 0 && failed.length > 0) {
    console.log('\n==== what each failed task reported (printed again; its full output is above) ====');
    for (const name of failed) {
      const state = tasks.get(name);
      console.log(`\n---- ${name} ----`);
      if (state === undefined) {
        console.log('(it printed nothing)');
        continue;
      }
      // A runner's own failure report when it printed one (vitest); otherwise (a type check, a
      // lint, a crash) the task's last lines, where such tools say what went wrong.
      const lines = state.failure.length > 0 ? state.failure : state.tail;
      for (const line of lines) console.log(line);
    }
    console.log('');
    for (const line of summary) console.log(line);
  }
  process.exit(signal === null ? (code ?? 1) : 1);
});
