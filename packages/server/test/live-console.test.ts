/**
 * The live console over the network, against a real server: a client that agreed on protocol
 * version 2 hears an execution's console lines while it runs (the client's onConsole), and a
 * client of version 1 that sends the same request gets exactly version 1's answer, the envelope
 * and nothing before it.
 */

import type { LogLine } from '@supolka/codemode-protocol';
import { CONSOLE_PROTOCOL_VERSION, PROTOCOL_VERSION } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { connect, RawPeer, useServer } from './helpers.ts';

const setup = useServer();

describe('the live console', () => {
  test('reaches a client of the version that has it, while the run goes', async () => {
    const client = await connect(setup.server);
    expect(client.protocol).toBe(PROTOCOL_VERSION);
    expect(PROTOCOL_VERSION).toBeGreaterThanOrEqual(CONSOLE_PROTOCOL_VERSION);
    const heard: LogLine[] = [];
    const firstHeard = Promise.withResolvers<void>();
    const envelope = await client.execute(
      {
        code: `async () => { console.log('working'); await t.afterHeard(); console.log('done'); return 1 }`,
        // Answers only once the first line crossed: it came while the run still waited.
        providers: [{ name: 't', fns: { afterHeard: () => firstHeard.promise } }],
      },
      {
        onConsole: (lines) => {
          heard.push(...lines);
          firstHeard.resolve();
        },
      },
    );
    expect(envelope).toStrictEqual({
      result: 1,
      logs: [
        { level: 'log', text: 'working' },
        { level: 'log', text: 'done' },
      ],
    });
    expect(heard).toStrictEqual(envelope.logs);
  });

  test('a client of version 1 that asks anyway gets only the result, as version 1 has it', async () => {
    const peer = await RawPeer.open(setup.server.url);
    peer.send({
      type: 'execute',
      id: 'e1',
      request: { code: `async () => { console.log('a'); return 2 }` },
      streamConsole: true,
    });
    expect(await peer.next()).toStrictEqual({
      type: 'result',
      id: 'e1',
      envelope: { result: 2, logs: [{ level: 'log', text: 'a' }] },
    });
  });
});
