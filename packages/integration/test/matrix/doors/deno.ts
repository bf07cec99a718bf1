/**
 * `serve` + ExecutorClient from Deno: a subset of the rows, run by one Deno process per file
 * (deno/matrix-client.js) against a server in this process. The rows travel to Deno as JSON, the
 * program already an arrow; Deno serves the tools and the proxied fetch from the same catalogue,
 * and answers each row's envelope (and a retained handler's responses) as a line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecuteResult } from '@supolka/codemode-protocol';
import { runDenoScript } from '../../../../executor/test/deno-script.ts';
import { arrowCode, type Behaviour, type DoorSpec } from '../door.ts';
import { fromEnvelope, type Outcome } from '../outcome.ts';
import { CANCEL_REASON } from './hooks.ts';
import { serverDoor, startServer, TOKEN } from './server.ts';

const require = createRequire(import.meta.url);
const CATALOGUE = new URL('../catalogue.ts', import.meta.url).pathname;
const SCRIPT = new URL('../deno/matrix-client.js', import.meta.url).pathname;

export const denoDoor: DoorSpec = {
  name: 'serve + ExecutorClient (Deno)',
  takes: 'arrow',
  lacks: serverDoor.lacks,
  cancellation: { reason: CANCEL_REASON, keepsLogs: false },
  picks: [
    'a tool call, spread convention',
    'a tool call, single-object convention',
    'a failing tool',
    'statements, where the object form expects an arrow',
    'a result holding a Map is noted',
    'binary values to a tool and back',
    'proxied fetch',
    'native fetch to a loopback server, opted in',
    'console streamed while the run goes',
    "console objects in workerd's format",
    'crypto.subtle',
    'TypeScript',
    'nesting: a tool runs another program through the same door',
    'cancellation while a tool call is pending',
    'a retained handler using timers and crypto over several invocations',
    'a retained handler calling a tool over several invocations',
    'a retained handler with proxied fetch over several invocations',
    'a retained handler whose tool runs another program',
  ],
  async open(rows) {
    const server = await startServer();
    const directory = mkdtempSync(join(tmpdir(), 'codemode-matrix-deno-'));
    try {
      const answers = await runDeno(server.url, directory, rows);
      return {
        run: async (behaviour) => {
          const answer = answers.get(behaviour.name);
          if (answer === undefined) throw new Error(`Deno answered nothing for ${behaviour.name}`);
          return answer;
        },
        close: () => server.close(),
      };
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  },
};

/** Runs every row in one Deno process; answers each row's outcome by name. */
async function runDeno(url: string, directory: string, rows: readonly Behaviour[]) {
  const bundle = require.resolve('@supolka/codemode-protocol/client.bundle.js');
  const rowsFile = join(directory, 'rows.json');
  writeFileSync(
    rowsFile,
    JSON.stringify(
      rows.map((row) => ({
        name: row.name,
        code: arrowCode(row),
        providers: row.providers,
        outbound: row.outbound,
        modules: row.modules,
        timeout: row.timeout,
        memoryLimit: row.memoryLimit,
        consoleFormat: row.consoleFormat,
        cancel: row.cancel,
        invoke: row.invoke,
      })),
    ),
  );
  const { status, stdout, stderr } = await runDenoScript({
    script: SCRIPT,
    args: [new URL(`file://${bundle}`).href, url, TOKEN, new URL(`file://${CATALOGUE}`).href, rowsFile],
    allowNet: new URL(url).host,
    allowRead: [bundle, CATALOGUE, rowsFile],
    denoDir: join(directory, 'deno-dir'),
  });
  if (status !== 0) throw new Error(`Deno exited ${status}: ${stderr}`);
  const answers = new Map<string, Outcome>();
  for (const line of stdout.trim().split('\n')) {
    const [name, envelope, responses] = JSON.parse(line) as [string, ExecuteResult, string[] | undefined];
    const outcome = fromEnvelope(envelope);
    answers.set(name, responses === undefined ? outcome : { ...outcome, responses });
  }
  return answers;
}
