/**
 * Upstreams that misbehave, through the real command: one that crashes in the middle of a call,
 * hangs, answers garbage or too much, changes its tools, lists too many or too heavy ones, or declares schemas too
 * deep, cyclic or explosive to expand. Each is bounded and named; the command and its other
 * upstreams go on.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEPTH_LIMIT, NAME_LIMIT, TOOL_LIMIT, TYPE_LIMIT } from '@supolka/codemode-executor/serving';
import { OUTBOUND_DISABLED_MESSAGE } from '@supolka/codemode-protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LISTING_WEIGHT_LIMIT } from '../src/listing-weight.ts';
import {
  executeArgumentsMessage,
  listingTooLargeMessage,
  notInCatalogMessage,
  toolNameCollisionMessage,
  toolNameTooLongMessage,
  tooManyCallsMessage,
  tooManyToolsMessage,
  upstreamCallFailedMessage,
  upstreamFailedMessage,
  upstreamTimeoutMessage,
} from '../src/texts.ts';

import {
  type Connected,
  connect,
  execute,
  firstText,
  misbehaving,
  removeScratch,
  scratch,
} from './mcp-process.ts';

/** Short, for the calls that must time out; `patient` below waits long enough for any answer. */
const UPSTREAM_TIMEOUT = 1500;
let served: Connected;
let patient: Connected;
/** A catalog past DESCRIPTION_CUTOVER. */
let large: Connected;

beforeAll(async () => {
  const mcpServers = {
    bad: misbehaving(),
    many: misbehaving('many'),
    collide: misbehaving('collide'),
    long: misbehaving('long-name'),
    fat: misbehaving('fat'),
  };
  [served, patient, large] = await Promise.all([
    connect({ mcpServers, upstreamTimeout: UPSTREAM_TIMEOUT }),
    // `quick` bounds its own calls, over the file's bound for every other server.
    connect({
      mcpServers: { bad: misbehaving(), quick: { ...misbehaving(), upstreamTimeout: UPSTREAM_TIMEOUT } },
      upstreamTimeout: 30_000,
      maxUpstreamCalls: 500,
    }),
    // The file's bounds, one of them overridden by a flag.
    connect(
      { mcpServers: { bad: misbehaving(), archive: misbehaving('large') }, timeout: 60_000, memoryLimit: 16 },
      {},
      ['--timeout', '1500'],
    ),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([served?.close(), patient?.close(), large?.close()]);
  removeScratch();
});

/** Runs `call` in a program and returns the message it threw, or 'no throw'. */
async function thrown(call: string, through = served): Promise<string> {
  const answer = await execute(
    through.client,
    `async () => { try { await ${call}; return 'no throw'; } catch (error) { return error.message; } }`,
  );
  return JSON.parse(firstText(answer)) as string;
}

describe('misbehaving upstreams', () => {
  test('a server with too many tools, a tool name of a megabyte, two tools of one name, or a list too heavy to keep is refused naming why', () => {
    expect(served.stderr()).toContain(upstreamFailedMessage('many', tooManyToolsMessage('many', TOOL_LIMIT)));
    expect(served.stderr()).toContain(
      upstreamFailedMessage('fat', listingTooLargeMessage('fat', LISTING_WEIGHT_LIMIT)),
    );
    expect(served.stderr()).toContain(
      upstreamFailedMessage('long', toolNameTooLongMessage('long', 1024 * 1024, NAME_LIMIT)),
    );
    expect(served.stderr()).toContain(
      upstreamFailedMessage(
        'collide',
        toolNameCollisionMessage('collide', 'get-item', 'get.item', 'get_item'),
      ),
    );
  });

  test('execute takes one argument, code, a string: anything else is refused before the run waits its turn', async () => {
    const extra = await served.client.callTool({
      name: 'execute',
      arguments: { code: 'async () => 1', padding: Array.from({ length: 1000 }, () => []) },
    });
    expect(extra.isError).toBe(true);
    expect(firstText(extra as never)).toBe(executeArgumentsMessage(['padding']));
    const notText = await served.client.callTool({ name: 'execute', arguments: { code: 42 } });
    expect(notText.isError).toBe(true);
    expect(firstText(notText as never)).toBe(executeArgumentsMessage([]));
    const { tools } = await served.client.listTools();
    expect(tools.find((tool) => tool.name === 'execute')?.inputSchema.additionalProperties).toBe(false);
  });

  test('declarations of cyclic, deep and exploding schemas are bounded', async () => {
    const { tools } = await served.client.listTools();
    const description = tools[0]?.description ?? '';
    expect(description).toContain(
      'cyclic(args: {\n    node?: {\n      next?: unknown;\n    };\n  }): Promise<unknown>;',
    );
    // Nesting past DEPTH_LIMIT reads as unknown: 1000 levels declare as a few.
    const deep = declarationOf(description, 'deep');
    expect(deep.match(/inner/g)?.length).toBeLessThanOrEqual(DEPTH_LIMIT + 1);
    expect(deep).toContain('inner: unknown;');
    // References doubling at each of 40 levels expand only as deep as the bound lets them.
    expect(declarationOf(description, 'laughs').length).toBeLessThan(TYPE_LIMIT);
  });

  test('an upstream error is a throw with its text', async () => {
    expect(await thrown('bad.fail({})')).toBe('the upstream says no');
  });

  test('a call that hangs ends at upstreamTimeout, naming the server and the tool', async () => {
    expect(await thrown('bad.hang({})')).toBe(upstreamTimeoutMessage('bad', 'hang', UPSTREAM_TIMEOUT));
    // A server's own upstreamTimeout wins over the file's 30 s.
    expect(await thrown('quick.hang({})', patient)).toBe(
      upstreamTimeoutMessage('quick', 'hang', UPSTREAM_TIMEOUT),
    );
  });

  test('garbage on the wire is skipped; the call it should have answered times out by name', async () => {
    expect(await thrown('bad.garbage({})')).toBe(upstreamTimeoutMessage('bad', 'garbage', UPSTREAM_TIMEOUT));
    expect(await thrown('bad.echo({ value: 1 })')).toBe('no throw');
  });

  test('an answer of the wrong shape is a throw naming the call', async () => {
    expect(await thrown('bad.wrong_shape({})')).toMatch(
      new RegExp(`^${escapeRegExp(upstreamCallFailedMessage('bad', 'wrong_shape', ''))}`),
    );
  });
});

describe('a large catalog', () => {
  test('past DESCRIPTION_CUTOVER, execute lists namespaces and search and describe find the rest', async () => {
    const { tools } = await large.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['execute', 'search', 'describe']);
    expect(tools[0]?.description).toContain('Namespaces: bad (13 tools), archive (400 tools).');
    expect(tools[0]?.description).not.toContain('record_7(');
    const found = await large.client.callTool({ name: 'search', arguments: { query: 'lucky archive' } });
    expect(firstText(found as never)).toBe(
      'archive.record_7: Reads record number 7 of the archive, the lucky one.',
    );
    const described = await large.client.callTool({
      name: 'describe',
      arguments: { names: ['archive.record_7', 'nope.x'] },
    });
    expect(firstText(described as never)).toBe(
      [
        'declare const archive: {',
        '  /** Reads record number 7 of the archive, the lucky one. */',
        '  record_7(args: {',
        '    /** which field to read */',
        '    field?: string;',
        '  }): Promise<unknown>;',
        '};',
        '',
        `// ${notInCatalogMessage('nope.x')}`,
      ].join('\n'),
    );
    const answer = await execute(large.client, `async () => archive.record_7({ field: 'title' })`);
    expect(answer.structuredContent).toEqual({ record: 'record_7', field: 'title' });
  });
});

describe('the executor bounds from the file and the flags', () => {
  test('a spinning program ends at --timeout, which wins over the file', async () => {
    const answer = await execute(large.client, 'async () => { for (;;) {} }');
    expect(answer.isError).toBe(true);
    expect(firstText(answer)).toMatch(/1500 ms.* \[TIMEOUT\]$/);
  });

  test('a program past the file’s memoryLimit ends with MEMORY_LIMIT', async () => {
    const answer = await execute(
      large.client,
      'async () => { const keep = []; for (;;) keep.push(new Array(1e6).fill(1)); }',
    );
    expect(answer.isError).toBe(true);
    expect(firstText(answer)).toMatch(/ \[MEMORY_LIMIT\]$/);
  });

  test('fetch is disabled by default', async () => {
    const answer = await execute(
      large.client,
      `async () => fetch('https://example.com/').then(() => 'reached', (error) => error.message)`,
    );
    expect(JSON.parse(firstText(answer))).toBe(OUTBOUND_DISABLED_MESSAGE);
  });
});

describe('upstreams that answer too much, too often, change or die', () => {
  test('an answer larger than the stdio bound is refused, and the server is restarted', async () => {
    expect(await thrown('bad.huge({ mib: 11 })', patient)).toBe(
      'The MCP server bad is not available (its connection closed after ReadBuffer exceeded maximum size of 10485760 bytes); it is being restarted, so retry this call in a few seconds or do without it.',
    );
    await eventually(async () => expect(await thrown('bad.echo({ value: 2 })', patient)).toBe('no throw'));
  });

  test('a program calling an upstream 10,000 times is stopped at maxUpstreamCalls', async () => {
    const answer = await execute(
      patient.client,
      `async () => { let made = 0; try { for (let i = 0; i < 10000; i++) { await bad.echo({ value: i }); made++; } } catch (error) { return { made, message: error.message }; } return { made }; }`,
    );
    expect(answer.structuredContent).toEqual({ made: 500, message: tooManyCallsMessage(500) });
  });

  test('a tool added upstream appears after list_changed, and the client is told', async () => {
    let told = 0;
    patient.client.setNotificationHandler(
      (await import('@modelcontextprotocol/sdk/types.js')).ToolListChangedNotificationSchema,
      () => {
        told++;
      },
    );
    expect(firstText(await execute(patient.client, `async () => bad.add_tool({ name: 'fresh-tool' })`))).toBe(
      '"added"',
    );
    await eventually(async () => {
      const { tools } = await patient.client.listTools();
      expect(tools[0]?.description).toContain('fresh_tool(args: Record<string, unknown>): Promise<unknown>;');
      expect(told).toBeGreaterThan(0);
    });
    expect(firstText(await execute(patient.client, 'async () => bad.fresh_tool({})'))).toBe(
      '"new tool answers"',
    );
  });

  test('a client that cancels execute ends the run: the call the program would make later never leaves', async () => {
    const marker = join(scratch(), 'touched');
    const controller = new AbortController();
    const answer = patient.client.callTool(
      {
        name: 'execute',
        arguments: {
          code: `async () => { await bad.echo({}); await new Promise((r) => setTimeout(r, 2000)); await bad.touch({ path: ${JSON.stringify(marker)} }); }`,
        },
      },
      undefined,
      { signal: controller.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    await expect(answer).rejects.toThrow(/abort/i);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(existsSync(marker)).toBe(false);
    // The control: the same program left alone makes the call.
    await execute(patient.client, `async () => bad.touch({ path: ${JSON.stringify(marker)} })`);
    expect(existsSync(marker)).toBe(true);
  });

  test('a server that exits mid-call is named in the error, and restarted with backoff', async () => {
    const message = await thrown('bad.crash({})', patient);
    expect(message).toBe(
      'The MCP server bad is not available (its connection closed; its last words on stderr: misbehaving: crashing as asked); it is being restarted, so retry this call in a few seconds or do without it.',
    );
    expect(patient.stderr()).toContain(
      'the MCP server bad is down (its connection closed; its last words on stderr: misbehaving: crashing as asked); restarting in',
    );
    await eventually(async () => expect(await thrown('bad.echo({ value: 3 })', patient)).toBe('no throw'));
    expect(patient.stderr()).toContain('the MCP server bad is back');
  }, 60_000);
});

/** One function's declaration in the description, up to the next one. */
function declarationOf(description: string, name: string): string {
  const start = description.indexOf(`  ${name}(args:`);
  expect(start).toBeGreaterThan(-1);
  const end = description.indexOf('>;\n', start);
  return description.slice(start, end + 2);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Retries `check` until it passes: a restart or a refresh lands when its process is up. */
async function eventually(check: () => Promise<void>, attempts = 40): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await check();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}
