/**
 * Approval rules through the real command: server and tool are matched as separate parts, so a rule
 * written for a server named `fs.admin` never reaches the tool `admin.drop_all` of the server `fs`;
 * a flat key that could be read either way stops the command naming both ways to write it; a
 * default-deny setting refuses what no rule names; and the execute description states the policy.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cli } from '../../executor/test/cli/cli-process.ts';
import { ambiguousRuleMessage, configKeyMessage, deniedMessage } from '../src/texts.ts';
import {
  type Connected,
  connect,
  execute,
  firstText,
  hostile,
  removeScratch,
  writeConfig,
} from './mcp-process.ts';

let separate: Connected;
let denying: Connected;

beforeAll(async () => {
  [separate, denying] = await Promise.all([
    connect({
      mcpServers: { fs: hostile(), 'fs.admin': hostile() },
      approvals: { fs: 'deny', 'fs.admin': { '*': 'allow' } },
    }),
    connect({
      mcpServers: { files: hostile() },
      approvals: { 'files.read': 'allow' },
      defaultApproval: 'deny',
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([separate?.close(), denying?.close()]);
  removeScratch();
});

/** What the call answered, or the message it threw. */
async function outcome(served: Connected, call: string): Promise<unknown> {
  const answer = await execute(
    served.client,
    `async () => { try { return await ${call}; } catch (error) { return error.message; } }`,
  );
  return JSON.parse(firstText(answer));
}

describe('approval rules', () => {
  test("a rule for the server fs.admin does not reach fs's own tool admin.drop_all", async () => {
    expect(await outcome(separate, 'fs.admin_drop_all({})')).toBe(
      deniedMessage('fs.admin_drop_all', '"fs": deny'),
    );
    expect(await outcome(separate, 'fs_admin.admin_drop_all({})')).toEqual({});
  });

  test('the flat key of the attack, read two ways, stops the command with both ways to write it', () => {
    const config = writeConfig({
      mcpServers: { fs: hostile() },
      approvals: { 'fs.*': 'deny', 'fs.admin.*': 'allow' },
    });
    const run = cli(['mcp', '--config', config]);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `codemode-executor mcp: ${configKeyMessage(
        config,
        'approvals["fs.admin.*"]',
        ambiguousRuleMessage(
          [
            ['fs', 'admin.*'],
            ['fs.admin', '*'],
          ],
          'allow',
        ),
      )}\n`,
    );
  });

  test('defaultApproval deny refuses what no rule names, naming the setting', async () => {
    expect(await outcome(denying, "files.write_file({ path: 'p', content: 'c' })")).toBe(
      deniedMessage('files.write_file', 'defaultApproval: deny'),
    );
    expect(await outcome(denying, 'files.read({})')).toEqual({});
  });

  test('the execute description states the policy', async () => {
    const { tools } = await denying.client.listTools();
    expect(tools[0]?.description).toContain(
      'Approval policy (server and tool globs; the most specific rule decides; a call no rule names is denied): "files.read": allow.',
    );
    const other = await separate.client.listTools();
    expect(other.tools[0]?.description).toContain('"fs": deny; "fs.admin": { "*": allow }.');
  });
});
