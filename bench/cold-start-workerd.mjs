// Started by bench/cold-start.ts as a process of its own, the peer of bench/cold-start-engine.mjs:
// a Node process that starts workerd with the Worker Loader host (the config bench/workerd-host.ts
// wrote, at argv[3]; the binary at argv[2]), waits for the port on its control channel, runs one
// loaded Worker, and writes one JSON line on stdout with the milliseconds from the spawn to that
// answer and the answer itself; then ends workerd. Plain JavaScript reading the control line with
// JSON.parse, so the process loads no more than such a caller needs.
import { spawn } from 'node:child_process';

const [binary, config] = process.argv.slice(2);
const started = performance.now();
const child = spawn(binary, ['serve', config, '--experimental', '--control-fd=3'], {
  stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
});
const fail = (why) => {
  child.kill('SIGKILL');
  process.stderr.write(`workerd ${why}\n`);
  process.exit(1);
};
child.once('exit', (code, signal) => fail(`exited during startup (${signal ?? `code ${code}`})`));
const timer = setTimeout(() => fail('did not listen within 15 s'), 15_000);
const port = await new Promise((resolve) => {
  let pending = '';
  child.stdio[3].on('data', (chunk) => {
    pending += chunk;
    for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const message = JSON.parse(line);
      if (message.event === 'listen' && message.socket === 'http') resolve(message.port);
    }
  });
});
// A failed request ends workerd too, rather than leaving it behind an unhandled rejection.
const answer = await fetch(`http://127.0.0.1:${port}/run?calls=1`)
  .then((response) => response.text())
  .catch((error) => fail(`did not answer (${error})`));
const ready = performance.now() - started;
clearTimeout(timer);
process.stdout.write(`${JSON.stringify({ ready, result: Number(answer) })}\n`);
child.removeAllListeners('exit');
child.kill('SIGKILL');
