/**
 * The server fuzz's short form (the full one is `tools/run fuzz`, docs/reliability.md): hostile
 * messages over a real WebSocket to `codemode-executor serve` running in a process of its own,
 * with truncated frames and half upgrades on raw connections beside them. The server stays up,
 * answers every message that calls for an answer and no other, and serves a well-formed
 * execution after each batch.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ServeProcess } from '../../reliability/serve-process.ts';
import { runSocketFuzz } from '../../reliability/socket-fuzz.ts';

const TOKEN = 'socket-fuzz-test-token-0123456789';
let server: ServeProcess;
beforeAll(async () => {
  server = await ServeProcess.start(
    new URL('../../../executor/src/cli/main.ts', import.meta.url).pathname,
    TOKEN,
    ['--pool-size', '1'],
  );
}, 60_000);
afterAll(() => server.stop());

test('2000 hostile messages in batches: no crash, each answered as owed, an execution served after each batch', async () => {
  const report = await runSocketFuzz({
    url: server.url,
    token: TOKEN,
    messages: 2000,
    batch: 500,
    seed: 14,
    maxDepth: 5000,
    alive: () => server.exit === undefined,
  });
  expect(report.crash?.what).toBeUndefined();
  expect(report.messages).toBe(2000);
  expect(report.batches).toBe(4);
  expect(report.servingFailures).toStrictEqual([]);
  expect({ unanswered: report.unanswered, unexpected: report.unexpected }).toStrictEqual({
    unanswered: 0,
    unexpected: 0,
  });
  expect(server.exit).toBeUndefined();
}, 180_000);
