// Started by bench/cold-start.ts as a process of its own: `new IsolateExecutor()` with its default
// pool, one execution of `async () => 1 + 1`, then one JSON line on stdout with the milliseconds from
// the construction to the answer (the engine-ready figure in process) and the answer itself. Plain
// JavaScript, so the process loads no type stripper the figure would carry.
import { IsolateExecutor } from '../packages/executor/dist/index.js';

const started = performance.now();
const executor = new IsolateExecutor();
const answer = await executor.execute({ code: 'async () => 1 + 1' });
const ready = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ready, sinceStart: performance.now(), result: answer.result })}\n`);
await executor.dispose();
