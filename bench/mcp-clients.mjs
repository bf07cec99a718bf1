/**
 * The MCP clients the benches drive, one of each SDK era, loaded from the mcp package (whose
 * dependencies they are, not the root's): the 1.x SDK's Client, which speaks only the handshake
 * revisions, and the 2.x SDK's Client negotiating the current revision (2026-07-28), each over
 * stdio or Streamable HTTP, and the command a bench starts a bridge or a floor server with. A
 * module of plain JavaScript so bench/run.mjs, which runs every .ts file here, does not run it.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export const mcpRequire = createRequire(new URL('../packages/mcp/package.json', import.meta.url));
/** The mcp package's own bin over its build. */
export const BRIDGE_BIN = new URL('../packages/mcp/bin/codemode-mcp.js', import.meta.url).pathname;

const load = (specifier) => import(mcpRequire.resolve(specifier));
const handshake = {
  ...(await load('@modelcontextprotocol/sdk/client/index.js')),
  ...(await load('@modelcontextprotocol/sdk/client/stdio.js')),
  ...(await load('@modelcontextprotocol/sdk/client/streamableHttp.js')),
};
const current = {
  ...(await load('@modelcontextprotocol/client')),
  ...(await load('@modelcontextprotocol/client/stdio')),
};

/** The path of an npm MCP server's entry (`server-everything`, `server-memory`, ...). */
export function npmServerEntry(name) {
  return mcpRequire
    .resolve(`@modelcontextprotocol/${name}/package.json`)
    .replace(/package\.json$/, 'dist/index.js');
}

/**
 * A 1.x SDK client (handshake revisions) connected to `target`: `{ command, args }` over stdio, or
 * `{ url }` over Streamable HTTP.
 */
export async function connectHandshake(target, name = 'codemode-bench') {
  const client = new handshake.Client({ name, version: '1.0.0' });
  await client.connect(
    target.url === undefined
      ? new handshake.StdioClientTransport({ command: target.command, args: target.args, stderr: 'ignore' })
      : new handshake.StreamableHTTPClientTransport(new URL(target.url)),
  );
  return client;
}

/**
 * A 2.x SDK client on the current revision, connected to `target` as connectHandshake's, whose
 * user accepts every question at once; throws when the connection did not land on 2026-07-28.
 */
export async function connectCurrent(target, name = 'codemode-bench-current') {
  const client = new current.Client(
    { name, version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }));
  await client.connect(
    target.url === undefined
      ? new current.StdioClientTransport({ command: target.command, args: target.args, stderr: 'ignore' })
      : new current.StreamableHTTPClientTransport(new URL(target.url)),
  );
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') throw new Error('not on 2026-07-28');
  return client;
}

/**
 * The bridge serving `config` over Streamable HTTP on a port the system picks, once it says where:
 * its process and URL.
 */
export function startHttpBridge(config) {
  const child = spawn(process.execPath, [BRIDGE_BIN, '--config', config, '--http', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Over HTTP the bridge never sees its client go: a bench that fails must not leave it running.
  const orphaned = () => child.kill('SIGTERM');
  process.once('exit', orphaned);
  child.once('exit', () => process.off('exit', orphaned));
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString('utf8');
      const found = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (found) resolve({ process: child, url: found[1] });
    });
    child.once('exit', (code) => reject(new Error(`the HTTP bridge exited ${code}: ${stderr}`)));
  });
}

/** Ends a process startHttpBridge (or a bench) started, once it has exited. */
export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
