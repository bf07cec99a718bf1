/**
 * The server's packages are the operator's alone: a client imports what the operator listed, and
 * nothing a client sends can name another package for the server to bundle (over the wire, with a
 * real WebSocket client and with a hand-driven one).
 */
import { join } from 'node:path';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { createServer, type ExecutorServer } from '@supolka/codemode-server';
import { afterAll, beforeAll, expect, test } from 'vitest';

const here = join(import.meta.dirname, '..');
let server: ExecutorServer;
let client: ExecutorClient;
beforeAll(async () => {
  server = await createServer({ port: 0, executor: { poolSize: 1, packages: ['zod'], packagesBase: here } });
  await server.executor.packages();
  client = await ExecutorClient.connect(new WebSocket(server.url));
});
afterAll(async () => {
  client.close();
  await server.close();
});

test('a client imports a package the operator listed', async () => {
  expect(
    await client.execute({ code: `import { z } from 'zod'\nasync () => z.number().int().parse(7)` }),
  ).toStrictEqual({
    result: 7,
    logs: [],
  });
});

test('a package installed beside the server but not listed is not found, statically or by import()', async () => {
  const notFound =
    "Cannot find module 'lodash' imported from executor.js: the module map has no such key, and it is no package this executor allows (zod).";
  expect(await client.execute({ code: `import _ from 'lodash'\nasync () => _` })).toStrictEqual({
    result: undefined,
    error: notFound,
    logs: [],
    errorKind: 'module-not-found',
    errorName: 'ModuleNotFoundError',
  });
  expect(
    await client.execute({
      code: `async () => import('lodash').then(() => 'loaded', (error) => error.message)`,
    }),
  ).toStrictEqual({ result: notFound, logs: [] });
});

/** A hand-driven peer: the messages as JSON text, the answers parsed. */
async function rawPeer(url: string) {
  const socket = new WebSocket(url);
  const answers: unknown[] = [];
  const waiting: ((value: unknown) => void)[] = [];
  socket.addEventListener('message', (event) => {
    const value = JSON.parse(String(event.data)) as unknown;
    const next = waiting.shift();
    if (next) next(value);
    else answers.push(value);
  });
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  return {
    send: (message: unknown) => socket.send(JSON.stringify(message)),
    next: () =>
      answers.length > 0 ? Promise.resolve(answers.shift()) : new Promise((resolve) => waiting.push(resolve)),
    close: () => socket.close(),
  };
}

test('a request that names packages of its own is refused by the schema: no field of a request reaches the bundler', async () => {
  const peer = await rawPeer(server.url);
  try {
    peer.send({ type: 'hello', protocol: 3 });
    expect(await peer.next()).toMatchObject({ type: 'hello', protocol: 3 });
    peer.send({
      type: 'execute',
      id: 'x1',
      request: {
        code: `import _ from 'lodash'\nasync () => typeof _`,
        packages: ['lodash'],
        packagesBase: '/',
      },
    });
    const answer = (await peer.next()) as { type: string; id: string; code: string; message: string };
    expect(answer).toMatchObject({ type: 'fault', id: 'x1', code: 'BAD_REQUEST' });
    expect(answer.message).toMatch(/packages/);
  } finally {
    peer.close();
  }
  expect(await server.executor.packages()).toStrictEqual([{ name: 'zod', version: '4.6.7' }]);
});

test('a module map a client sends wins over the package of the same name, and bundles nothing', async () => {
  expect(
    await client.execute({
      code: `import { z } from 'zod'\nasync () => z`,
      modules: { zod: 'export const z = "the client\'s own"' },
    }),
  ).toStrictEqual({ result: "the client's own", logs: [] });
});
