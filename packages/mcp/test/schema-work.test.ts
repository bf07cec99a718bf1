/**
 * No upstream's schema is compiled or run on the bridge's event loop, through the real command: an
 * honest upstream's output schema with a backtracking `pattern`, fed a crafted answer, ends its own
 * call at VALIDATION_TIMEOUT while other executions go on; and a burst of list_changed costs two
 * listings, not one each.
 */

import { VALIDATION_TIMEOUT } from '@supolka/codemode-executor/serving';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { upstreamCallFailedMessage, validationTimeoutMessage } from '../src/texts.ts';
import { type Connected, connect, execute, firstText, hostile, removeScratch } from './mcp-process.ts';

let served: Connected;
let bursting: Connected;

beforeAll(async () => {
  [served, bursting] = await Promise.all([
    // Two children, so the second execution does not wait for the first's child.
    connect({ mcpServers: { h: hostile() } }, {}, ['--pool-size', '2']),
    connect({ mcpServers: { h: hostile() } }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([served?.close(), bursting?.close()]);
  removeScratch();
});

describe("an upstream's schemas", () => {
  test('a backtracking output pattern ends its own call at VALIDATION_TIMEOUT; another execution answers first', async () => {
    const order: string[] = [];
    // 2^36 steps of backtracking: far past any deadline on this thread.
    const slow = execute(
      served.client,
      `async () => { try { return await h.pattern_out({ s: 'a'.repeat(36) + 'b' }); } catch (error) { return error.message; } }`,
    ).then((answer) => {
      order.push('backtracking');
      return JSON.parse(firstText(answer));
    });
    await served.client.ping();
    const quick = execute(served.client, 'async () => 6 * 7').then((answer) => {
      order.push('quick');
      return firstText(answer);
    });
    expect(await quick).toBe('42');
    expect(await slow).toBe(
      upstreamCallFailedMessage('h', 'pattern_out', validationTimeoutMessage(VALIDATION_TIMEOUT)),
    );
    expect(order).toEqual(['quick', 'backtracking']);
    // The checker's thread was ended and a new one serves the next answer.
    expect(
      JSON.parse(firstText(await execute(served.client, `async () => h.pattern_out({ s: 'aaa' })`))),
    ).toEqual({ s: 'aaa' });
  });

  test('three list_changed while a listing runs make one more listing, not three', async () => {
    expect(firstText(await execute(bursting.client, 'async () => h.notify_thrice({})'))).toBe('"notified"');
    // The first listing at startup, then the one the first notification started, held upstream.
    expect(firstText(await execute(bursting.client, 'async () => h.listings({})'))).toBe('2');
  });
});
