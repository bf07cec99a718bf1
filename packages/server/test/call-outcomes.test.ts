/**
 * How `codemode_tool_calls_total` counts the end of a tool call. A client's tool that throws is
 * answered with a returned frame holding the error envelope, so the server counted it as
 * returned and `thrown` stayed 0; a throw now counts as thrown however it is answered, a tool
 * that does not exist too, and a result that merely holds an `error` key still counts as returned.
 */
import { describe, expect, test } from 'vitest';
import { connect, RawPeer, useServer } from './helpers.ts';

const setup = useServer();

/** The tool-call counters as /metrics reads now, by outcome. */
async function toolCalls(): Promise<Record<string, number>> {
  const text = await (await fetch(new URL('/metrics', setup.server.url.replace('ws:', 'http:')))).text();
  const counts: Record<string, number> = {};
  for (const [, outcome, value] of text.matchAll(/^codemode_tool_calls_total\{outcome="(\w+)"\} (\d+)$/gm)) {
    counts[outcome as string] = Number(value);
  }
  return counts;
}

/** What the counters gained while `run` ran. */
async function counted(run: () => Promise<void>): Promise<Record<string, number>> {
  const before = await toolCalls();
  await run();
  const after = await toolCalls();
  return Object.fromEntries(
    Object.entries(after).map(([outcome, value]) => [outcome, value - (before[outcome] ?? 0)]),
  );
}

describe('codemode_tool_calls_total', () => {
  test('counts a tool of ExecutorClient that threw as thrown, and one that is not there', async () => {
    const client = await connect(setup.server);
    const gained = await counted(async () => {
      const envelope = await client.execute({
        code: `async () => {
          await kv.get();
          await kv.missing().catch(() => {});
          return kv.fail();
        }`,
        providers: [
          {
            name: 'kv',
            fns: {
              get: () => 'value',
              fail: () => {
                throw new Error('the store is down');
              },
            },
          },
        ],
      });
      expect(envelope).toMatchObject({ error: 'the store is down', errorKind: 'tool-failed' });
    });
    client.close();
    expect(gained).toStrictEqual({ returned: 1, thrown: 2, unanswered: 0, lost: 0 });
  });

  test('reads the answer of any client: an error envelope however spaced, a thrown frame, a result holding an error key', async () => {
    const peer = await RawPeer.open(setup.server.url);
    const gained = await counted(async () => {
      peer.send({
        type: 'execute',
        id: 'answers',
        request: {
          code: `async () => {
            const caught = [];
            for (let i = 0; i < 3; i++) caught.push(await kv.call(i).catch((error) => 'failed: ' + error.message));
            return caught;
          }`,
          providers: [{ name: 'kv' }],
        },
      });
      const frames = [
        ['returned', '{\n  "error": "written by another language"\n}'],
        ['thrown', 'thrown by the client'],
        ['returned', '{"result":{"error":"a field of the result"}}'],
      ];
      for (const [call, frame] of frames.entries()) {
        expect(await peer.next()).toMatchObject({ type: 'dispatch', id: 'answers', call });
        peer.send({ type: 'dispatchReply', id: 'answers', call, frame });
      }
      expect(await peer.next()).toStrictEqual({
        type: 'result',
        id: 'answers',
        envelope: {
          result: [
            'failed: written by another language',
            'failed: thrown by the client',
            { error: 'a field of the result' },
          ],
          logs: [],
        },
      });
    });
    expect(gained).toStrictEqual({ returned: 1, thrown: 2, unanswered: 0, lost: 0 });
  });
});
