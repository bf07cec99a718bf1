/**
 * What a native response costs the host beside the bytes its budget counts. Node hands a body over
 * chunk by chunk, each a Buffer object and a view that keeps its whole read buffer alive; a server
 * that answers in one-byte chunks made each counted byte cost about 420 bytes of the host's memory
 * (2 MB counted, 900 MB resident), so a body far under the budget ended the whole process. Each
 * attack runs in a child process of its own, with a small heap, since before the fix it died of it.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/** One million one-byte chunks: 1 MB of body, 6 MB on the wire. */
const CHUNKS = 1_000_000;

let server: Server;
let port: number;
beforeAll(async () => {
  // A raw server, so the body goes out in exactly the chunks written here.
  server = createServer((socket: Socket) => {
    // A child that dies mid-body resets the connection: that is the failure the test reports.
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      const slab = Buffer.from('1\r\nx\r\n'.repeat(10_000));
      let left = CHUNKS / 10_000;
      const write = () => {
        while (left > 0) {
          left--;
          if (!socket.write(slab)) return void socket.once('drain', write);
        }
        socket.end('0\r\n\r\n');
      };
      write();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs nativeFetch against the server in a child whose heap is `heapMB`; its exit and output. */
function fetchInChild(
  heapMB: number,
): Promise<{ code: number | null; signal: string | null; output: string }> {
  const fetchModule = new URL('../../src/sandbox/fetch.ts', import.meta.url).href;
  const budgetModule = new URL('../../src/sandbox/outbound/body-budget.ts', import.meta.url).href;
  const script = `
    import { nativeFetch } from ${JSON.stringify(fetchModule)};
    import { BodyBudget } from ${JSON.stringify(budgetModule)};
    const budget = new BodyBudget(32 * 2 ** 20);
    const response = await nativeFetch({ method: 'GET', url: 'http://127.0.0.1:${port}/', headers: [], body: null },
      new AbortController().signal, { allowLoopback: true }, budget.ticket());
    console.log(JSON.stringify([response.body.byteLength, response.body.buffer.byteLength, budget.held]));`;
  const child = spawn(
    process.execPath,
    [`--max-old-space-size=${heapMB}`, '--input-type=module', '-e', script],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, output })));
}

describe('the host memory of a native response body', () => {
  test('a body of a million one-byte chunks is read in a 64 MB heap, in one buffer of its exact size', async () => {
    const { code, signal, output } = await fetchInChild(64);
    expect({ code, signal }).toStrictEqual({ code: 0, signal: null });
    // The body, its own buffer (no view of a larger one), and the bytes its ticket counted.
    expect(JSON.parse(output)).toStrictEqual([CHUNKS, CHUNKS, CHUNKS]);
  });
});
