/**
 * `codemode-executor mcp`, as an MCP client meets it: the official SDK's client over stdio, the
 * catalogue's `store` namespace as the one upstream (fixtures/store-mcp-server.mjs), the program as
 * statements in `execute`'s `code`. The answer is text: the result in the codec's JSON (or
 * `undefined`), or `isError` with the error and ` [CODE]` when the executor ended the run and a block
 * naming the failed call and a thrown object's JSON; a `notes:` block, and the console lines in a
 * block after `console:`. The bridge's settings are its command line and its config, so the door
 * keeps one bridge per set of --timeout, --memory, --outbound and `packages` a row asks for.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FAULT_CODES, parseForDispatch } from '@supolka/codemode-protocol';
import { FAILED_CALL_LINE, NOTES_BLOCK, THROWN_LINE } from '../../../../mcp/src/texts.ts';
import { type Connected, connect, removeScratch } from '../../../../mcp/test/mcp-process.ts';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromParts, type Outcome } from '../outcome.ts';
import { PACKAGE_DIRECTORIES, usesPackages } from '../package-doors.ts';

const STORE_SERVER = new URL('../fixtures/store-mcp-server.mjs', import.meta.url).pathname;
const CONSOLE_BLOCK = 'console:\n';

export const mcpDoor: DoorSpec = {
  name: 'codemode-executor mcp',
  takes: 'statements',
  lacks: {
    'spread-tools': "an upstream's tool takes one arguments object (MCP's tools/call)",
    prelude: 'the config names MCP servers, never provider source',
    'proxy-source': 'the config names MCP servers, never provider source',
    'proxied-fetch': 'outbound is disabled or native: a config has no function to proxy through',
    'loopback-opt-in':
      'the bridge has no loopback opt-in: native fetch reaches public addresses only, which a test cannot serve',
    modules: 'execute takes only code: the bridge has no module map',
    'stream-console': "the console lines come in the answer's second block, once the run has ended",
    'bounded-console':
      "the answer's console block is cut at maxResultLength (100000 characters), far below the capture bound (1 MiB of cost)",
    nesting: "a program's calls go to upstream MCP servers, never back into the bridge",
    cancel:
      "a cancelled call answers nothing: the client's notifications/cancelled ends the request, and the run with it (test/mcp/misbehaving.test.ts)",
    retain: 'execute answers text: no handler outlives the call',
    durable:
      "a program's calls go to upstream MCP tools, which cannot pause it: the bridge runs durably only to ask for an approval on a 2026-07-28 client (packages/mcp/test/approval-rounds.test.ts)",
  },
  omits: {
    errorKind:
      "execute answers text: the error with the executor's [CODE]; the kind of error user code met is not in it",
  },
  async open() {
    const bridges = new Map<string, Promise<Connected>>();
    const bridgeFor = (behaviour: Behaviour) => {
      const args: string[] = [];
      if (behaviour.timeout !== undefined) args.push('--timeout', String(behaviour.timeout));
      if (behaviour.wallClockLimit !== undefined)
        args.push('--wall-clock-limit', String(behaviour.wallClockLimit));
      if (behaviour.memoryLimit !== undefined) args.push('--memory', String(behaviour.memoryLimit));
      if (behaviour.outbound === 'native') args.push('--outbound', 'native');
      if (behaviour.consoleFormat !== undefined) args.push('--console-format', behaviour.consoleFormat);
      // The packages are a key of the config, each with its directory.
      const packages = usesPackages(behaviour);
      const key = `${args.join(' ')} ${packages}`;
      let bridge = bridges.get(key);
      if (bridge === undefined) {
        const config = {
          mcpServers: { store: { command: process.execPath, args: [STORE_SERVER] } },
          ...(packages ? { packages: PACKAGE_DIRECTORIES } : {}),
        };
        bridge = connect(config, {}, args);
        bridges.set(key, bridge);
      }
      return bridge;
    };
    return {
      run: async (behaviour) => {
        const { client } = await bridgeFor(behaviour);
        const answer = (await client.callTool(
          { name: 'execute', arguments: { code: statementCode(behaviour) } },
          undefined,
          { timeout: 60_000 },
        )) as CallToolResult;
        return fromAnswer(answer);
      },
      close: async () => {
        for (const bridge of bridges.values()) await (await bridge).close();
        removeScratch();
      },
    };
  },
};

/** The answer's text blocks read back into an outcome. */
function fromAnswer(answer: CallToolResult): Outcome {
  const texts = answer.content.map((block) => (block.type === 'text' ? block.text : ''));
  const [first = '', ...rest] = texts;
  const block = (prefix: string) => rest.find((text) => text.startsWith(prefix))?.slice(prefix.length);
  const logs = block(CONSOLE_BLOCK)?.split('\n') ?? [];
  const notes = block(NOTES_BLOCK)?.split('\n');
  const extra = notes === undefined ? {} : { notes };
  if (answer.isError !== true) {
    return fromParts({ result: first === 'undefined' ? undefined : parseForDispatch(first), logs, ...extra });
  }
  // The details block: "failed call: provider.tool at executor.js:L:C" and "thrown: JSON".
  const details = rest.find((text) => text.startsWith(FAILED_CALL_LINE) || text.startsWith(THROWN_LINE));
  const fields: Record<string, string> = {};
  for (const line of details?.split('\n') ?? []) {
    const call = new RegExp(`^${FAILED_CALL_LINE}([^.\\s]+)\\.(\\S+?)(?: at (\\S+))?$`).exec(line);
    if (call !== null) {
      fields.errorProvider = call[1] as string;
      fields.errorTool = call[2] as string;
      if (call[3] !== undefined) fields.errorAt = call[3];
    }
    if (line.startsWith(THROWN_LINE)) fields.errorJson = line.slice(THROWN_LINE.length);
  }
  const code = / \[([A-Z_]+)\]$/.exec(first)?.[1];
  if (code !== undefined && (FAULT_CODES as readonly string[]).includes(code)) {
    return fromParts({ error: first.slice(0, -(code.length + 3)), code, logs, ...fields, ...extra });
  }
  return fromParts({ error: first, logs, ...fields, ...extra });
}
