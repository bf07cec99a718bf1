/**
 * `tools/run fuzz` (or `node packages/integration/reliability/fuzz-command.ts`): the decoder's fuzz and
 * the server's at full size, against the build, their figures beside their targets
 * (docs/reliability.md).
 *
 *   --decode N    hostile texts through decodeMessage (default 1000000)
 *   --socket N    hostile messages over a WebSocket to `codemode-executor serve` (default 50000)
 *   --batch N     messages per batch, each followed by a well-formed execution (default 1000)
 *   --seed N      the seed (default: the clock), printed so a run can be repeated
 *
 * Exits 1 when a target is missed.
 */
import { PAYLOAD_LIMIT } from '@supolka/codemode-protocol';
import { numberFlags } from './build.ts';
import { judgeExtremes, runDecodeFuzz } from './decode-fuzz.ts';
import { extremeMessages } from './hostile-messages.ts';
import { ServeProcess } from './serve-process.ts';
import { runSocketFuzz } from './socket-fuzz.ts';

const flags = numberFlags(process.argv.slice(2), {
  decode: 1_000_000,
  socket: 50_000,
  batch: 1000,
  seed: Date.now() % 2 ** 31,
});
console.log(`fuzz: seed ${flags.seed}, Node ${process.version}`);

const decode = runDecodeFuzz({ messages: flags.decode, seed: flags.seed, maxDepth: 1000 });
const extremes = judgeExtremes(PAYLOAD_LIMIT);
console.log(
  `\ndecodeMessage: ${decode.messages} texts in ${decode.seconds.toFixed(1)} s (${(decode.messages / decode.seconds).toFixed(0)}/s)`,
);
console.log('| family | fault | accepted |\n| --- | --- | --- |');
for (const [family, { fault, message }] of Object.entries(decode.families))
  console.log(`| ${family} | ${fault} | ${message} |`);
console.log('\n| extreme text | bytes | ms | accepted |\n| --- | --- | --- | --- |');
for (const judged of extremes)
  console.log(
    `| ${judged.family} | ${judged.bytes} | ${judged.ms.toFixed(0)} | ${judged.accepted}${judged.broken ? `, BROKE: ${judged.broken}` : ''} |`,
  );

const TOKEN = `fuzz-${Math.random().toString(36).slice(2)}-0123456789abcdef`;
const server = await ServeProcess.start(new URL('../dist/cli/main.js', import.meta.url).pathname, TOKEN);
const socket = await runSocketFuzz({
  url: server.url,
  token: TOKEN,
  messages: flags.socket,
  batch: flags.batch,
  seed: flags.seed,
  maxDepth: 20_000,
  first: [...extremeMessages(PAYLOAD_LIMIT)],
  alive: () => server.exit === undefined,
});
const exit = server.exit ?? (await server.stop());
console.log(
  `\nserver: ${socket.messages} messages in ${socket.batches} batches in ${socket.seconds.toFixed(1)} s (${(socket.messages / socket.seconds).toFixed(0)}/s); it ended on ${exit.signal ?? `exit code ${exit.code}`} after SIGTERM`,
);
const brokenExtremes = extremes.filter((judged) => judged.broken !== undefined).length;
const rows: [string, string, string, boolean][] = [
  ['texts through decodeMessage', String(decode.messages), '>= 1000000', decode.messages >= 1_000_000],
  [
    'decodeMessage throws or malformed faults',
    decode.failure ? `1: ${decode.failure.what}` : '0',
    '0',
    !decode.failure,
  ],
  ['extreme texts that broke decodeMessage', String(brokenExtremes), '0', brokenExtremes === 0],
  ['messages over sockets', String(socket.messages), '>= 50000', socket.messages >= 50_000],
  ['server crashes', socket.crash ? `1: ${socket.crash.what}` : '0', '0', !socket.crash],
  [
    'messages left unanswered / answered unasked',
    `${socket.unanswered} / ${socket.unexpected}`,
    '0 / 0',
    socket.unanswered + socket.unexpected === 0,
  ],
  [
    'batches after which an execution failed',
    String(socket.servingFailures.length),
    '0',
    socket.servingFailures.length === 0,
  ],
];
console.log('\n| figure | measured | target | |\n| --- | --- | --- | --- |');
for (const [name, measured, target, met] of rows)
  console.log(`| ${name} | ${measured} | ${target} | ${met ? 'met' : 'MISSED'} |`);
if (decode.failure)
  console.log(`\ndecodeMessage broke on: ${JSON.stringify(decode.failure.text).slice(0, 2000)}`);
if (socket.crash) {
  console.log(`\nthe server went down (${socket.crash.what}); its stderr:\n${exit.stderr}`);
  console.log(
    `the batch in flight: ${JSON.stringify(socket.crash.batch.map((message) => message.text.slice(0, 300)))}`,
  );
}
for (const failure of socket.servingFailures.slice(0, 10)) console.log(`serving failure: ${failure}`);
process.exitCode = rows.every(([, , , met]) => met) ? 0 : 1;
