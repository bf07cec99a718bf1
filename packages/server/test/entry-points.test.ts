/**
 * The server runs isolates only in the children its pool forks: serving an execution loads no
 * isolated-vm into the server's own process (docs/sandbox.md, "Entry points"), as the executor's
 * main entry does not (packages/executor/test/executor/entry-points.test.ts, whose recorder this
 * uses). Nor, on a connection's common path, zod: the `serve` command decides those messages with
 * the protocol's hot checks and loads the schemas on first need (src/decode-on-demand.ts;
 * docs/server.md, "Cold start"). A fresh Node on the built package, imported by its name.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeMessage, PROTOCOL_VERSION, parseForDispatch } from '@supolka/codemode-protocol';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, expect, test } from 'vitest';
import { ALREADY_OPEN_MESSAGE } from '../src/texts.ts';
import { openSocket, servingUrl, TOKEN, waitUntil } from './helpers.ts';

const recorder = new URL('../../executor/test/executor/fixtures/record-addons.mjs', import.meta.url).pathname;
const driver = new URL('./fixtures/drive-server.mjs', import.meta.url).pathname;
const reports = mkdtempSync(join(tmpdir(), 'server-entry-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

test('an execution through the server entry loads no isolated-vm into the server process', () => {
  const file = join(reports, 'server.json');
  const run = spawnSync(
    process.execPath,
    ['--no-node-snapshot', '--no-wasm-code-gc', '--import', recorder, driver],
    {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ADDON_REPORT: file },
    },
  );
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toStrictEqual({ result: 42, logs: [] });
  const report = JSON.parse(readFileSync(file, 'utf8')) as { resolved: string[]; sharedObjects: string[] };
  // The probe saw the server package itself: the run went through its built entry.
  expect(report.resolved.some((url) => url.endsWith('/packages/server/dist/index.js'))).toBe(true);
  expect(report.resolved.filter((url) => url.includes('/isolated-vm/'))).toStrictEqual([]);
  expect(report.sharedObjects.filter((path) => /isolated[-_]vm.*\.node$/.test(path))).toStrictEqual([]);
});

const cli = new URL('../../executor/dist/cli/main.js', import.meta.url).pathname;

interface Report {
  readonly resolved: readonly string[];
}

/**
 * Runs the built `codemode-executor serve` with the recorder until it listens, lets `drive` use
 * it, then stops it with SIGTERM (it exits 0, and the recorder writes what it resolved).
 */
async function servedRecorded(name: string, drive: (url: string) => Promise<void>): Promise<Report> {
  const file = join(reports, `${name}.json`);
  // No token file, durable keys or report folder the runner's environment may hold.
  const {
    CODEMODE_EXECUTOR_TOKEN_FILE: _,
    CODEMODE_DURABLE_KEYS: __,
    CODEMODE_DURABLE_KEYS_FILE: ___,
    ADDON_REPORT_DIR: ____,
    ...env
  } = process.env;
  const child = spawn(
    process.execPath,
    [
      '--no-node-snapshot',
      '--no-wasm-code-gc',
      '--import',
      recorder,
      cli,
      'serve',
      '--port',
      '0',
      '--pool-size',
      '1',
    ],
    { env: { ...env, CODEMODE_EXECUTOR_TOKEN: TOKEN, ADDON_REPORT: file } },
  );
  const exited = once(child, 'exit');
  try {
    await drive(await servingUrl(child));
  } finally {
    child.kill('SIGTERM');
  }
  const [status] = await exited;
  expect(status).toBe(0);
  return JSON.parse(readFileSync(file, 'utf8')) as Report;
}

const zodModules = (report: Report) => report.resolved.filter((url) => url.includes('/zod/'));

test('serve, its /healthz and /metrics, and an execution with a tool call through a client load no zod, nor prom-client whole', async () => {
  const report = await servedRecorded('serve', async (url) => {
    const http = url.replace(/^ws:/, 'http:');
    // As a probe asks: until the pool's first child reported healthy (each answer waits up to 2 s).
    const healthz = new URL('/healthz', http);
    await waitUntil(async () => (await fetch(healthz)).status === 200, '/healthz answers ok', 30_000);
    const client = await ExecutorClient.connect(openSocket(url, { authorization: `Bearer ${TOKEN}` }));
    try {
      const envelope = await client.execute({
        code: 'async () => 6 * (await numbers.seven())',
        providers: [{ name: 'numbers', fns: { seven: () => 7 } }],
      });
      expect(envelope).toStrictEqual({ result: 42, logs: [] });
    } finally {
      client.close();
    }
    expect(await (await fetch(new URL('/metrics', http))).text()).toMatch(
      /^codemode_executions_total\{outcome="ok"\} 1$/m,
    );
  });
  // The probe saw the command itself: the run went through the built server.
  expect(report.resolved.some((url) => url.includes('/packages/server/dist/bundle/'))).toBe(true);
  expect(zodModules(report)).toStrictEqual([]);
  // prom-client's four classes and its default metrics (which /metrics served), not its main entry:
  // that loads its push gateway and cluster aggregator too, which the server never uses (metrics.ts).
  const promClient = report.resolved.filter((url) => url.includes('/prom-client/'));
  expect(promClient.some((url) => url.endsWith('/prom-client/lib/defaultMetrics.js'))).toBe(true);
  expect(
    promClient.filter((url) => /\/prom-client\/(index|lib\/pushgateway|lib\/cluster)\.js$/.test(url)),
  ).toStrictEqual([]);
}, 60_000);

/**
 * A message only the schemas decide waits for their load, and the connection's messages behind it
 * wait behind it: the second hello, which is answered without the schemas, is answered after the
 * malformed execute sent before it, whose refusal the schema words as decodeMessage words it. The
 * control of the test above too: the probe sees zod once a message needs it.
 */
test('a message the schemas decide keeps its place: the ones behind it wait for their load', async () => {
  const malformed = JSON.stringify({ type: 'execute', id: 'x1', request: { code: 7 } });
  const refused = decodeMessage(malformed);
  if (refused.ok) throw new Error('the malformed execute decoded');
  const answers: unknown[] = [];
  const report = await servedRecorded('order', async (url) => {
    const socket = openSocket(url, { authorization: `Bearer ${TOKEN}` });
    const three = new Promise<void>((resolve) => {
      socket.addEventListener('message', (event) => {
        answers.push(parseForDispatch(String(event.data)));
        if (answers.length === 3) resolve();
      });
    });
    await once(socket as unknown as EventTarget, 'open');
    socket.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION }));
    socket.send(malformed);
    socket.send(JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION }));
    await three;
    socket.close();
  });
  expect(answers).toStrictEqual([
    { type: 'hello', protocol: PROTOCOL_VERSION },
    { type: 'fault', ...refused.fault },
    { type: 'fault', code: 'BAD_REQUEST', message: ALREADY_OPEN_MESSAGE },
  ]);
  expect(zodModules(report).length).toBeGreaterThan(0);
}, 60_000);

/**
 * A peer that has shown no token cannot make the server load the schemas: its first message is
 * decided by the hello's hot check alone, and whatever that check leaves undecided (an unknown type,
 * a hello with a key no hello has, a malformed text) is refused as no hello.
 */
test('first messages that are no hello, from peers without a token, load no zod', async () => {
  const firsts = [
    JSON.stringify({ type: 'x' }),
    JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, extra: 1 }),
    JSON.stringify({ type: 'execute', id: 'x1', request: { code: 7 } }),
    '{"type":',
  ];
  const closes: number[] = [];
  const report = await servedRecorded('unauthenticated', async (url) => {
    for (const first of firsts) {
      const socket = openSocket(url);
      const closed = new Promise<void>((resolve) => {
        socket.addEventListener('close', (event) => {
          closes.push((event as unknown as { code: number }).code);
          resolve();
        });
      });
      await once(socket as unknown as EventTarget, 'open');
      socket.send(first);
      await closed;
    }
  });
  expect(closes).toHaveLength(firsts.length);
  expect(zodModules(report)).toStrictEqual([]);
}, 60_000);
