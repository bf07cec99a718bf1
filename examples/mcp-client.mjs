// The MCP door: `codemode-mcp` offers an MCP client one `execute` tool over the MCP servers its
// config names, here the memory server from npm. This program plays the part a desktop client or an
// agent plays: it starts the command over stdio with the MCP SDK's client, reads the tool, and calls
// it with a program that uses two of the memory server's tools in one step.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The file a package's command runs, read from its package.json as npm reads it to link the command. */
function commandOf(name, command) {
  const manifest = fileURLToPath(import.meta.resolve(`${name}/package.json`));
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), bin[command]);
}

const scratch = mkdtempSync(join(tmpdir(), 'codemode-mcp-example-'));
try {
  // The config a user writes: the mcpServers format MCP clients already use. A desktop config would
  // say "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]; the example starts
  // the installed copy with this Node so it runs offline.
  const config = join(scratch, 'mcp.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [commandOf('@modelcontextprotocol/server-memory', 'mcp-server-memory')],
          env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
        },
      },
    }),
  );

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [commandOf('@supolka/codemode-mcp', 'codemode-mcp'), '--config', config],
    stderr: 'ignore', // the command names the servers it serves there
  });
  const client = new Client({ name: 'mcp-example', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    console.log('tools:', tools.map((tool) => tool.name).join(', '));
    const description = tools[0].description;
    console.log('the description declares memory:', description.includes('declare const memory'));

    const answer = await client.callTool({
      name: 'execute',
      arguments: {
        code: `async () => {
          await memory.create_entities({ entities: [
            { name: 'Ada', entityType: 'person', observations: ['writes the parser'] },
            { name: 'Grace', entityType: 'person', observations: ['reviews the parser'] },
          ] });
          await memory.create_relations({ relations: [{ from: 'Grace', to: 'Ada', relationType: 'reviews' }] });
          const graph = await memory.read_graph({});
          console.log('entities', graph.entities.length);
          return graph.relations.map((r) => r.from + ' ' + r.relationType + ' ' + r.to);
        }`,
      },
    });
    for (const block of answer.content) console.log(`${block.type}: ${block.text}`);
  } finally {
    await client.close();
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
