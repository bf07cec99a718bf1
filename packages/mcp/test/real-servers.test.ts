/**
 * The mcp command over stdio with real MCP servers from npm as upstreams and the official SDK's
 * Client as its client: one program reads through the filesystem server and writes through the
 * memory server, and what both hold afterwards comes back; results map as docs/mcp.md says.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { upstreamFailedMessage } from '../src/texts.ts';
import {
  type Connected,
  connect,
  execute,
  firstText,
  npmServer,
  removeScratch,
  scratch,
} from './mcp-process.ts';

let files: string;
let memoryFile: string;
let served: Connected;

beforeAll(async () => {
  files = scratch();
  writeFileSync(join(files, 'notes.txt'), 'alpha\nbeta\n');
  writeFileSync(join(files, 'todo.txt'), 'write tests\n');
  memoryFile = join(scratch(), 'memory.jsonl');
  served = await connect({
    mcpServers: {
      filesystem: npmServer('server-filesystem', [files]),
      'knowledge-graph': npmServer('server-memory', [], { MEMORY_FILE_PATH: memoryFile }),
      everything: npmServer('server-everything', ['stdio']),
      broken: { command: join(files, 'no-such-server') },
    },
    maxResultLength: 2000,
  });
}, 60_000);

afterAll(async () => {
  await served?.close();
  removeScratch();
});

describe('mcp over stdio with real servers', () => {
  test('one program reads files through one server and writes entities through another', async () => {
    const answer = await execute(
      served.client,
      `async () => {
        const listing = await filesystem.list_directory({ path: ${JSON.stringify(files)} });
        const names = listing.content.split('\\n').filter((line) => line.startsWith('[FILE]')).map((line) => line.slice(7)).sort();
        for (const name of names) {
          const { content } = await filesystem.read_text_file({ path: ${JSON.stringify(files)} + '/' + name });
          await knowledge_graph.create_entities({ entities: [{ name, entityType: 'file', observations: content.trim().split('\\n') }] });
        }
        console.log('stored', names.length);
        await filesystem.write_file({ path: ${JSON.stringify(files)} + '/count.txt', content: String(names.length) });
        return { graph: await knowledge_graph.read_graph({}), count: (await filesystem.read_text_file({ path: ${JSON.stringify(files)} + '/count.txt' })).content };
      }`,
    );
    expect(answer.isError).toBeUndefined();
    const expected = {
      graph: {
        entities: [
          { name: 'notes.txt', entityType: 'file', observations: ['alpha', 'beta'] },
          { name: 'todo.txt', entityType: 'file', observations: ['write tests'] },
        ],
        relations: [],
      },
      count: '2',
    };
    expect(answer.structuredContent).toEqual(expected);
    expect(JSON.parse(firstText(answer))).toEqual(expected);
    expect(answer.content[1]).toEqual({ type: 'text', text: 'console:\nstored 2' });
    // What the servers hold afterwards, read outside the program.
    expect(readFileSync(join(files, 'count.txt'), 'utf8')).toBe('2');
    expect(readFileSync(memoryFile, 'utf8')).toContain('"name":"todo.txt"');
  });

  test('structured content, JSON text, plain text and images reach the program as values', async () => {
    const answer = await execute(
      served.client,
      `async () => {
        const structured = await everything.get_structured_content({ location: 'New York' });
        const sum = await everything.get_sum({ a: 2, b: 3 });
        const echo = await everything.echo({ message: '{"not": "parsed"' });
        const image = await everything.get_tiny_image({});
        const picture = image.find((block) => block.type === 'image');
        return {
          structuredKeys: Object.keys(structured).sort(),
          sum,
          echo,
          imageIsBytes: picture.data instanceof Uint8Array,
          mimeType: picture.mimeType,
          png: Array.from(picture.data.subarray(1, 4), (byte) => String.fromCharCode(byte)).join(''),
        };
      }`,
    );
    expect(answer.isError, firstText(answer)).toBeUndefined();
    expect(answer.structuredContent).toMatchObject({
      sum: 'The sum of 2 and 3 is 5.',
      echo: 'Echo: {"not": "parsed"',
      imageIsBytes: true,
      mimeType: 'image/png',
      png: 'PNG',
    });
    expect((answer.structuredContent as { structuredKeys: string[] }).structuredKeys.length).toBeGreaterThan(
      0,
    );
  });

  test('an upstream that reports an error throws in the program with its text', async () => {
    const answer = await execute(
      served.client,
      `async () => {
        try { await filesystem.read_text_file({ path: '/etc/passwd' }); return 'read'; }
        catch (error) { return error.message; }
      }`,
    );
    expect(firstText(answer)).toMatch(/^"Access denied - path outside allowed directories/);
  });

  test('TypeScript is accepted, and a result past maxResultLength is cut with a marker', async () => {
    const answer = await execute(
      served.client,
      `async (): Promise<string> => { const n: number = 5000; return 'y'.repeat(n); }`,
    );
    const text = firstText(answer);
    expect(text).toBe(
      `"${'y'.repeat(1999)}\n[truncated: 5002 characters, the first 2000 shown (maxResultLength); return less, or a part at a time]`,
    );
    expect(answer.structuredContent).toBeUndefined();
  });

  test('a program error comes back as isError with the text, console lines beside it', async () => {
    const answer = await execute(
      served.client,
      `async () => { console.warn('before'); throw new Error('program says no'); }`,
    );
    expect(answer.isError).toBe(true);
    expect(firstText(answer)).toBe('program says no');
    expect(answer.content[1]).toEqual({ type: 'text', text: 'console:\n[warn] before' });
  });

  test('the broken upstream is named at startup and in the description; the others are served', async () => {
    expect(served.stderr()).toContain(
      upstreamFailedMessage('broken', `spawn ${join(files, 'no-such-server')} ENOENT`),
    );
    const { tools } = await served.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['execute']);
    const description = tools[0]?.description ?? '';
    expect(description).toContain('declare const knowledge_graph: {');
    expect(description).toContain('read_text_file(args: {');
    expect(description).toContain(
      `Not available now: broken (broken): down, spawn ${join(files, 'no-such-server')} ENOENT.`,
    );
  });
});
