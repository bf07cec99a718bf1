/**
 * The bound on one upstream message holds on HTTP as on stdio, through the real command: an HTTP
 * upstream answering more than UPSTREAM_MESSAGE_LIMIT, as a JSON body or as one server-sent event,
 * is refused before it is read whole, and the same upstream's answers within the bound go on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UPSTREAM_MESSAGE_LIMIT } from '../src/bounded-fetch.ts';
import { upstreamMessageTooLargeMessage, upstreamTimeoutMessage } from '../src/texts.ts';
import { type Connected, connect, execute, firstText, removeScratch } from './mcp-process.ts';

const FIXTURE = new URL('./fixtures/http-upstream.mjs', import.meta.url).pathname;
const UPSTREAM_TIMEOUT = 5000;
const started: ChildProcess[] = [];
let served: Connected;

/** The HTTP upstream, answering as JSON or as an event stream; resolves to its URL. */
function upstream(json: boolean): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, JSON: json ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const port = /listening (\d+)/.exec(chunk.toString('utf8'))?.[1];
      if (port !== undefined) resolve(`http://127.0.0.1:${port}/mcp`);
    });
    child.once('exit', (code) => reject(new Error(`the HTTP upstream exited ${code}`)));
  });
}

beforeAll(async () => {
  const [json, events] = await Promise.all([upstream(true), upstream(false)]);
  served = await connect({
    mcpServers: { json: { type: 'http', url: json }, events: { type: 'http', url: events } },
    upstreamTimeout: UPSTREAM_TIMEOUT,
  });
}, 60_000);

afterAll(async () => {
  await served?.close();
  for (const child of started) child.kill('SIGTERM');
  removeScratch();
});

/** Each call's length, or the message it threw, in order. */
async function outcomes(calls: string[]): Promise<unknown[]> {
  const answer = await execute(
    served.client,
    `async () => { const out = []; for (const call of [${calls.join(', ')}]) { try { out.push((await call()).length); } catch (error) { out.push(error.message); } } return out; }`,
  );
  return JSON.parse(firstText(answer));
}

describe('an HTTP upstream answering past UPSTREAM_MESSAGE_LIMIT', () => {
  const mib = UPSTREAM_MESSAGE_LIMIT / 1024 / 1024;

  test('a JSON answer is refused naming the bound, and answers within it go on', async () => {
    const [first, second, third] = await outcomes([
      `() => json.huge({ mib: ${mib + 2} })`,
      `() => json.huge({ mib: ${mib + 2} })`,
      '() => json.huge({ mib: 1 })',
    ]);
    for (const refused of [first, second]) {
      expect(refused).toContain(upstreamMessageTooLargeMessage(UPSTREAM_MESSAGE_LIMIT));
    }
    expect(third).toBe(1024 * 1024);
  });

  test('an event past the bound is never delivered, and answers within it go on', async () => {
    const [refused, kept] = await outcomes([
      `() => events.huge({ mib: ${mib + 2} })`,
      '() => events.huge({ mib: 1 })',
    ]);
    // The SDK reads an event stream on its own: the stream it breaks off answers nothing.
    expect(refused).toBe(upstreamTimeoutMessage('events', 'huge', UPSTREAM_TIMEOUT));
    expect(kept).toBe(1024 * 1024);
  });
});
