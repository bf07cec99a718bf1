/**
 * What sealing and opening a durable token costs against the journal's length: 10, 100 and 1000
 * entries, each a tool call with its arguments and a result of a few hundred bytes of JSON (an
 * issue of a tracker: title, labels, a body), the shape a journal of tool calls will mostly hold.
 * Seal and open are timed separately, open with an in-memory claim store as a server would run it;
 * the token's size is printed beside them. Started by `tools/run bench`; prints one table and
 * records nothing (docs/durable.md, "Cost").
 */
import { randomBytes } from 'node:crypto';
import {
  DurableKeyRing,
  DurableTokens,
  MAX_JOURNAL_LENGTH,
  MemoryClaimStore,
} from '../packages/executor/src/durable/index.ts';
import { sample, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
const keys = new DurableKeyRing({ keys: [{ id: '2026-12', key: randomBytes(32) }] });
const sealer = new DurableTokens({ keys, maxJournalLength: MAX_JOURNAL_LENGTH });
const binding = {
  request: {
    code: `async () => { for (let page = 0; page < 1000; page++) await tracker.getIssue({ id: page }); }`,
    modules: {},
    providers: [{ name: 'tracker', tools: ['getIssue', 'closeIssue'] }],
    prelude: '',
    proxySource: '',
    positionalArgs: false,
    outbound: 'disabled',
    bounds: { timeout: 60_000, memoryLimit: 128 },
  },
  runtime: 'runtime-bundle-hash',
  versions: { executor: '0.1.0', v8: process.versions.v8, isolatedVm: '7.0.1' },
  principal: 'bench',
};

function journalOf(length: number): unknown[] {
  return Array.from({ length }, (_, sequence) => ({
    sequence,
    kind: 'call',
    provider: 'tracker',
    tool: 'getIssue',
    args: { id: sequence },
    outcome: {
      returned: {
        id: sequence,
        title: `Issue ${sequence}: the importer drops rows whose dates are before 1970`,
        labels: ['bug', 'importer'],
        state: sequence % 3 === 0 ? 'closed' : 'open',
        body: 'Steps: import the file attached, open the table, count the rows. '.repeat(3),
      },
    },
  }));
}

const format = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(3)} ms`);
console.log('\nDurable token: seal and open against the journal length');
console.log(
  '| entries | token size | bytes per entry | seal median | seal p99 | open median | open p99 | samples |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const length of [10, 100, 1000]) {
  const journal = journalOf(length);
  const rounds = length === 1000 ? Math.max(20, Math.floor(iterations / 4)) : iterations;
  const { token } = sealer.seal({ journal }, binding);
  const seal = summarize('seal', await sample(rounds, () => sealer.seal({ journal }, binding)));
  // A token per open, sealed outside the timing: the claim store refuses a token opened twice.
  const tokens = Array.from({ length: rounds + 20 }, () => sealer.seal({ journal }, binding).token);
  const opener = new DurableTokens({
    keys,
    maxJournalLength: MAX_JOURNAL_LENGTH,
    claims: new MemoryClaimStore(),
  });
  const open = summarize('open', await sample(rounds, () => opener.open(tokens.pop(), binding)));
  console.log(
    `| ${length} | ${(token.length / 1024).toFixed(1)} KiB | ${Math.round(token.length / length)} | ${format(seal.median)} | ${format(seal.p99)} | ${format(open.median)} | ${format(open.p99)} | ${rounds} |`,
  );
}
