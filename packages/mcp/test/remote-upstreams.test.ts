/**
 * Upstreams over HTTP: the everything server from npm serving Streamable HTTP, and the same server
 * serving only the legacy SSE transport, which the command reaches by falling back after its
 * Streamable HTTP attempt is refused. Both on loopback, on ports the system picked.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Connected, connect, execute, removeScratch } from './mcp-process.ts';

const EVERYTHING = new URL(
  '../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
  import.meta.url,
).pathname;
const started: ChildProcess[] = [];
let served: Connected;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The everything server over `transport` (sse or streamableHttp), once it listens. */
async function everything(transport: string): Promise<number> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.push(child);
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes(`port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`everything ${transport} exited ${code}: ${stderr}`)));
  });
  return port;
}

beforeAll(async () => {
  const [legacy, modern] = await Promise.all([everything('sse'), everything('streamableHttp')]);
  served = await connect({
    mcpServers: {
      legacy: { url: `http://127.0.0.1:${legacy}/sse` },
      modern: { url: `http://127.0.0.1:${modern}/mcp` },
    },
  });
}, 60_000);

afterAll(async () => {
  await served?.close();
  for (const child of started) child.kill('SIGTERM');
  removeScratch();
});

test('one program calls a Streamable HTTP upstream and one that speaks only legacy SSE', async () => {
  const answer = await execute(
    served.client,
    `async () => ({ legacy: await legacy.echo({ message: 'old' }), modern: await modern.echo({ message: 'new' }) })`,
  );
  expect(answer.structuredContent).toEqual({ legacy: 'Echo: old', modern: 'Echo: new' });
  expect(served.stderr()).toContain('serving 2 of 2 MCP servers: legacy, modern');
});
