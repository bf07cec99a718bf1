/**
 * What a message costs the server to decode: frames whose JSON decodes to twenty times their size
 * are counted from their text and refused before anything parses them, so the server's heap never
 * holds the decoded value. The server runs in a process of its own with a 768 MB heap
 * (fixtures/budget-server.ts): one 32 MiB frame of `[{},{},...]` decoded takes 749 MB, so a server
 * that parsed before counting dies on the first, and it is that process that dies.
 */
import {
  PAYLOAD_LIMIT,
  scanMessage,
  stringifyForDispatch,
  tooManyValuesMessage,
  VALUE_LIMIT,
} from '@supolka/codemode-protocol';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { afterAll, expect, test } from 'vitest';
import { MESSAGE_COST_LIMIT, messageCost } from '../src/message-cost.ts';
import { messageCostMessage } from '../src/texts.ts';
import { openSocket, RawPeer, TOKEN, useServerProcess } from './helpers.ts';

const MiB = 2 ** 20;
const HEAP_MB = 768;
/** What the server's heap may hold more, after a collection, once every refused frame is gone. */
const RETAINED_BOUND = 48 * MiB;

const server = useServerProcess({ token: TOKEN, executor: { poolSize: 1 } }, HEAP_MB);

/** An execute of one json module whose value is `element` repeated to fill a message of `bytes`. */
function jsonExecute(id: string, element: string, bytes = PAYLOAD_LIMIT - 1024): string {
  const head = `{"type":"execute","id":"${id}","request":{"code":"import m from 'm'\\nasync () => m.length","modules":{"m":{"json":[`;
  const tail = ']}}}}';
  const count = Math.floor((bytes - head.length - tail.length) / (element.length + 1));
  return `${head}${`${element},`.repeat(count - 1)}${element}${tail}`;
}

test('32 MiB frames of empty objects, arrays and numbers are refused before decode, the heap stays bounded, another client is served', async () => {
  const friend = await ExecutorClient.connect(openSocket(server.url, { authorization: `Bearer ${TOKEN}` }));
  afterAll(() => friend.close());
  const hostile = await RawPeer.open(server.url);
  const baseline = await server.heapUsed();

  // The values as an attacker would spread them: empty objects, nested empty arrays, numbers,
  // literals, each filling a message; each alone would take most of the heap once parsed.
  const shapes = ['{}', '{}', '{}', '[[]]', '0', 'null', '{"a":{}}'];
  for (const [index, element] of shapes.entries()) hostile.send(jsonExecute(`flood-${index}`, element));
  // Meanwhile another client's execution is served.
  const waiting = friend.execute({ code: 'async () => 6 * 7' });
  for (const [index] of shapes.entries()) {
    expect(await hostile.next()).toStrictEqual({
      type: 'fault',
      id: `flood-${index}`,
      code: 'PAYLOAD_TOO_LARGE',
      message: tooManyValuesMessage('message', VALUE_LIMIT),
    });
  }
  expect(await waiting).toStrictEqual({ result: 42, logs: [] });
  expect(server.process.exitCode).toBeNull();
  expect((await server.heapUsed()) - baseline).toBeLessThan(RETAINED_BOUND);
}, 180_000);

test('a reply padded with a 32 MiB list of objects is refused undecoded and ends the execution it names', async () => {
  const hostile = await RawPeer.open(server.url);
  hostile.send({
    type: 'execute',
    id: 'waits',
    request: { code: 'async () => tools.get()', providers: [{ name: 'tools' }] },
  });
  const dispatch = await hostile.next();
  expect(dispatch).toMatchObject({ type: 'dispatch', id: 'waits', provider: 'tools', tool: 'get' });
  const padding = `${'{},'.repeat(10 * MiB)}{}`;
  hostile.send(
    `{"type":"dispatchReply","id":"waits","call":${dispatch.call},"frame":["returned","1",${padding}]}`,
  );
  expect(await hostile.next()).toStrictEqual({
    type: 'fault',
    id: 'waits',
    code: 'PAYLOAD_TOO_LARGE',
    message: tooManyValuesMessage('message', VALUE_LIMIT),
  });
  expect(await hostile.next()).toMatchObject({
    type: 'result',
    id: 'waits',
    envelope: { code: 'CANCELLED' },
  });
  expect(server.process.exitCode).toBeNull();
}, 120_000);

test('a message within VALUE_LIMIT whose objects each take a map of their own is refused past MESSAGE_COST_LIMIT', async () => {
  const hostile = await RawPeer.open(server.url);
  const baseline = await server.heapUsed();
  // Half a million objects of one distinct key each: a million values, about 230 MB once parsed.
  const members = Array.from(
    { length: VALUE_LIMIT / 2 - 100 },
    (_, index) => `{"k${index.toString(36)}":[]}`,
  );
  const text = `{"type":"execute","id":"maps","request":{"code":"async () => 1","modules":{"m":{"json":[${members.join(',')}]}}}}`;
  const cost = messageCost(scanMessage(text), Buffer.byteLength(text));
  expect(cost).toBeGreaterThan(MESSAGE_COST_LIMIT);
  hostile.send(text);
  expect(await hostile.next()).toStrictEqual({
    type: 'result',
    id: 'maps',
    envelope: { error: messageCostMessage(cost, MESSAGE_COST_LIMIT), code: 'PAYLOAD_TOO_LARGE', logs: [] },
  });
  expect((await server.heapUsed()) - baseline).toBeLessThan(RETAINED_BOUND);
}, 120_000);

test('ordinary large requests still go through: a 20 MiB text module, and 1.5 MiB of json records', async () => {
  const client = await ExecutorClient.connect(openSocket(server.url, { authorization: `Bearer ${TOKEN}` }));
  afterAll(() => client.close());
  const text = 'é'.repeat(10 * MiB);
  expect(
    await client.execute({
      code: 'import t from "t"\nasync () => t.length',
      modules: { t: { text } },
    }),
  ).toStrictEqual({ result: 10 * MiB, logs: [] });
  const records = Array.from({ length: 40_000 }, (_, id) => ({ id, name: `user ${id}`, tags: ['a', 'b'] }));
  expect(stringifyForDispatch(records).length).toBeGreaterThan(1.5 * MiB);
  expect(
    await client.execute({
      code: 'import r from "r"\nasync () => r.reduce((sum, { id }) => sum + id, 0)',
      modules: { r: { json: records } },
    }),
  ).toStrictEqual({ result: (40_000 * 39_999) / 2, logs: [] });
}, 120_000);
