/**
 * registerCloudflareWorkersStub under plain Node, as a user runs it: a separate `node` process
 * loading the built package, with the hook registered by `--import`, statically imports
 * `@cloudflare/codemode/ai` and the root entry and runs the AI SDK code tool through
 * IsolateExecutor. Without the hook the same program fails to load, which is what the hook is for.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const node = (...args: string[]) =>
  run(process.execPath, ['--no-node-snapshot', ...args], { timeout: 20_000 });

describe('@cloudflare/codemode/ai on plain Node', () => {
  test('with the hook registered by --import, it loads and runs against IsolateExecutor', async () => {
    const { stdout } = await node('--import', fixture('register.mjs'), fixture('ai-on-node.mjs'));
    expect(JSON.parse(stdout)).toStrictEqual({ result: 42, logs: ['asking'] });
  });

  test('without it, loading fails on the cloudflare: scheme', async () => {
    await expect(node(fixture('ai-on-node.mjs'))).rejects.toMatchObject({
      stderr: expect.stringContaining('ERR_UNSUPPORTED_ESM_URL_SCHEME'),
    });
  });
});
