/**
 * The floor under the bridge's `execute` (bench/mcp.ts): an MCP server on the same 2.x SDK and
 * serving entry as the bridge (the low-level Server, serveStdio for both protocol eras), offering
 * one tool `execute` with the bridge's input schema that answers `1` without running anything.
 * Its round trip is what the SDKs and the pipe cost a call before the bridge does any work.
 */
import { createRequire } from 'node:module';

const mcpRequire = createRequire(new URL('../packages/mcp/package.json', import.meta.url));
const { Server } = await import(mcpRequire.resolve('@modelcontextprotocol/server'));
const { serveStdio } = await import(mcpRequire.resolve('@modelcontextprotocol/server/stdio'));

const EXECUTE = {
  name: 'execute',
  description: 'Answers 1.',
  inputSchema: {
    type: 'object',
    properties: { code: { type: 'string', description: 'The program: async () => { ... }' } },
    required: ['code'],
  },
};

serveStdio(() => {
  const server = new Server(
    { name: 'codemode-bench-floor', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: [EXECUTE] }));
  server.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: '1' }] }));
  return server;
});
