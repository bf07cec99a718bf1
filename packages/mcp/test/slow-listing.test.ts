/**
 * An upstream that answers each page of its tool list just within a page's bound: the listing as a
 * whole must end within CONNECT_TIMEOUT, or one such server held the bridge's startup (and every
 * other upstream's tools) for PAGE_LIMIT pages, 50 minutes. Its reason is named and the others are
 * served. A file of its own: it waits CONNECT_TIMEOUT.
 */
import { afterAll, expect, test } from 'vitest';
import { listingTimeoutMessage, upstreamFailedMessage } from '../src/texts.ts';
import { CONNECT_TIMEOUT } from '../src/upstream.ts';
import { type Connected, connect, execute, firstText, misbehaving, removeScratch } from './mcp-process.ts';

let served: Connected | undefined;
afterAll(async () => {
  await served?.close();
  removeScratch();
});

test(
  'a listing that takes longer than CONNECT_TIMEOUT in all ends there, and the other upstreams are served',
  async () => {
    served = await connect({ mcpServers: { slow: misbehaving('slow-pages'), bad: misbehaving() } });
    // Three pages at 11 s each: the third is asked with 8 s left of the listing's 30. The line is on
    // stderr, which may reach this process a little after the answer to initialize on stdout.
    const line = upstreamFailedMessage('slow', listingTimeoutMessage(CONNECT_TIMEOUT, 2));
    for (let waited = 0; waited < 5000 && !served.stderr().includes(line); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(served.stderr()).toContain(line);
    expect(firstText(await execute(served.client, 'async () => typeof bad.echo'))).toBe('"function"');
  },
  CONNECT_TIMEOUT + 30_000,
);
