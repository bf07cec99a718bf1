/**
 * The bridge's console format (docs/mcp.md, "The config file"): the answer's console block is
 * written as workerd's console writes it when the file's consoleFormat says inspect, and the
 * --console-format flag wins over the file, as every flag does. The path matrix runs the flag
 * through the bridge beside every other door.
 */
import { afterAll, expect, test } from 'vitest';
import { type Connected, connect, execute, misbehaving, removeScratch } from './mcp-process.ts';

const opened: Connected[] = [];

afterAll(async () => {
  await Promise.all(opened.map((served) => served.close()));
  removeScratch();
});

/** The answer's console block, which follows the result's. */
async function consoleBlock(served: Connected): Promise<string | undefined> {
  const answer = await execute(served.client, `console.log('m', new Map([[1, 2]]), { a: [1] }); return 1;`);
  const block = answer.content[1];
  return block?.type === 'text' ? block.text : undefined;
}

test("the file's consoleFormat, and the flag over it", async () => {
  const config = { mcpServers: { bad: misbehaving() }, consoleFormat: 'inspect' };
  const inspecting = await connect(config);
  opened.push(inspecting);
  const flagged = await connect(config, {}, ['--console-format', 'string']);
  opened.push(flagged);
  expect(await consoleBlock(inspecting)).toBe('console:\nm Map(1) { 1 => 2 } { a: [ 1 ] }');
  expect(await consoleBlock(flagged)).toBe('console:\nm [object Map] [object Object]');
}, 60_000);
