/**
 * Runs one program on both sides and prints both records and their difference, without the
 * expectations: the quickest way to see what workerd does with a program while writing a case.
 *
 *   pnpm try 'async () => new URL("http://a/b?c=d").search'
 *   pnpm try --tools github,kv --file program.js
 *   pnpm try --modules map.json 'async () => (await import("probe.js")).default'
 *
 * Usage: node --no-node-snapshot scripts/try.ts [--tools a,b] [--timeout ms] [--modules map.json]
 *        [--console-format inspect] (--file path | code)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Sandbox } from '@supolka/codemode-executor/sandbox';
import type { AreaCase } from '../src/case.ts';
import { renderDifferences } from '../src/compare/diff.ts';
import { normaliseRecord } from '../src/compare/normalize.ts';
import { runOnExecutor } from '../src/executor/side.ts';
import { startLoopbackServer } from '../src/loopback/server.ts';
import type { ProviderName } from '../src/tools/fake.ts';
import { WorkerdProcess } from '../src/workerd/process.ts';
import { runOnWorkerd } from '../src/workerd/side.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    tools: { type: 'string' },
    timeout: { type: 'string' },
    file: { type: 'string' },
    modules: { type: 'string' },
    'console-format': { type: 'string' },
  },
});
const code = values.file !== undefined ? readFileSync(values.file, 'utf8') : positionals.join(' ');
if (code.trim() === '') {
  process.stderr.write('usage: scripts/try.ts [--tools a,b] [--timeout ms] (--file path | code)\n');
  process.exit(2);
}
const item: AreaCase = {
  area: 'errors',
  id: 'try/program',
  name: 'program',
  code,
  ...(values.tools ? { tools: values.tools.split(',') as ProviderName[] } : {}),
  ...(values.timeout ? { timeout: Number(values.timeout) } : {}),
  ...(values.modules ? { modules: JSON.parse(readFileSync(values.modules, 'utf8')) } : {}),
  ...(values['console-format'] === 'inspect' ? { consoleFormat: 'inspect' as const } : {}),
};

const loopback = await startLoopbackServer();
const workerd = await WorkerdProcess.start({
  loopbackAddress: `127.0.0.1:${loopback.port}`,
  transcripts: loopback.transcripts,
});
const sandbox = new Sandbox();
try {
  const options = { loopbackOrigin: loopback.origin };
  const left = normaliseRecord(
    await runOnWorkerd(item, { url: workerd.url, loopbackOrigin: loopback.origin }),
    options,
  );
  const right = normaliseRecord(await runOnExecutor(item, sandbox, loopback.origin), options);
  process.stdout.write(`workerd:  ${JSON.stringify(left)}\nexecutor: ${JSON.stringify(right)}\n`);
  const diff = renderDifferences(left, right);
  process.stdout.write(diff === '' ? 'identical\n' : `differences:\n${diff}\n`);
} finally {
  sandbox.dispose();
  await workerd.dispose();
  await loopback.close();
}
