/**
 * A child whose isolated-vm cannot serve says why, in one sentence that names the release found,
 * the supported range and the fix, and the caller reads that sentence in the pool's refusal, in
 * IsolateExecutor.engine(), in the server's /healthz and in the CLI's output. Each case is a real
 * isolated-vm from the registry that cannot serve this Node: a binary built for another Node's
 * ABI (7.0.1's own prebuild for the other Node it supports, where a local build sits), a release
 * with no binary for this platform, and a release outside the range (5.0.4, which npm picks
 * under Node 20). The executor runs from a copy of the build that loads that isolated-vm
 * (addon-install.ts), in processes of its own.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SUPPORTED_ISOLATED_VM } from '../../../executor/src/sandbox/setup/engine-addon.ts';
import { type AddonInstall, installWithIsolatedVm } from './addon-install.ts';

const node = process.version;
const platform = `${process.platform}-${process.arch}`;
/** Installs, copies and processes that each start a pool: seconds alone, more on a loaded machine. */
const SPAWNS = 120_000;

const POOL_SCRIPT = `
  import { IsolateExecutor } from '@supolka/codemode-executor';
  const executor = new IsolateExecutor({ poolSize: 1 });
  const envelope = await executor.execute({ code: 'async () => 1' });
  const engine = await executor.engine().then(() => 'reported', (error) => error.message);
  await executor.dispose();
  console.log(JSON.stringify({ envelope, engine }));
`;

const SERVER_SCRIPT = `
  import { createServer } from '@supolka/codemode-server';
  const server = await createServer({ port: 0, token: 'a-token-of-thirty-two-characters', executor: { poolSize: 1 } });
  const response = await fetch(new URL('/healthz', server.url.replace('ws:', 'http:')));
  const body = await response.json();
  await server.close();
  console.log(JSON.stringify({ status: response.status, engine: body.engine }));
`;

/** Every place a caller reads why no child starts, each holding `sentence` as it is. */
async function expectSentenceEverywhere(install: AddonInstall, sentence: string): Promise<void> {
  const refusal = `No pool child can serve executions: ${sentence}.`;
  expect(await install.script(POOL_SCRIPT)).toStrictEqual({
    envelope: { error: refusal, logs: [], code: 'INTERNAL' },
    engine: refusal,
  });
  expect(await install.script(SERVER_SCRIPT)).toStrictEqual({ status: 503, engine: { error: refusal } });
  writeFileSync(join(install.root, 'program.js'), 'async () => 1\n');
  const cli = await install.cli(['run', 'program.js', '--json']);
  expect(cli.code).not.toBe(0);
  expect(`${cli.stdout}${cli.stderr}`).toContain(refusal);
}

describe('a binary built for another Node', () => {
  let install: AddonInstall;
  let otherAbi = '';
  beforeAll(async () => {
    install = await installWithIsolatedVm('isolated-vm@7.0.1');
    // A local build (build/Release) is what the addon's loader takes first: here, the release's
    // own binary for the other Node it supports, as a build made under that Node would leave.
    const prebuilds = join(install.isolatedVm, 'prebuilds', platform);
    const other = readdirSync(prebuilds).find(
      (name) => !name.includes(`.abi${process.versions.modules}.`) && !name.includes('musl'),
    ) as string;
    otherAbi = /\.abi(\d+)\./.exec(other)?.[1] as string;
    mkdirSync(join(install.isolatedVm, 'build', 'Release'), { recursive: true });
    copyFileSync(join(prebuilds, other), join(install.isolatedVm, 'build', 'Release', 'isolated_vm.node'));
  }, SPAWNS);
  afterAll(() => install?.remove());

  test(
    'is named with both ABIs and the rebuild that fixes it, in the pool, engine(), /healthz and the CLI',
    async () => {
      await expectSentenceEverywhere(
        install,
        `isolated-vm 7.0.1 has a binary built for another Node (NODE_MODULE_VERSION ${otherAbi}; Node ${node} needs ${process.versions.modules}): this package supports isolated-vm ${SUPPORTED_ISOLATED_VM}, and \`npm rebuild isolated-vm\` run under Node ${node} fixes it`,
      );
    },
    SPAWNS,
  );
});

describe('a release outside the supported range', () => {
  let install: AddonInstall;
  beforeAll(async () => {
    install = await installWithIsolatedVm('isolated-vm@5.0.4');
  }, SPAWNS);
  afterAll(() => install?.remove());

  test(
    'is named with the release found and the install that fixes it, in the pool, engine(), /healthz and the CLI',
    async () => {
      await expectSentenceEverywhere(
        install,
        `isolated-vm 5.0.4 is installed, outside the range this package supports (${SUPPORTED_ISOLATED_VM}): \`npm install isolated-vm@${SUPPORTED_ISOLATED_VM}\` run under Node ${node} fixes it`,
      );
    },
    SPAWNS,
  );
});

describe('a release with no binary for this platform', () => {
  let install: AddonInstall;
  beforeAll(async () => {
    install = await installWithIsolatedVm('isolated-vm@7.0.1');
    rmSync(join(install.isolatedVm, 'prebuilds', platform), { recursive: true });
  }, SPAWNS);
  afterAll(() => install?.remove());

  test(
    "is named with the loader's own words and the rebuild that fixes it",
    async () => {
      const { envelope } = (await install.script(POOL_SCRIPT)) as { envelope: { error: string } };
      const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      expect(envelope.error).toMatch(
        new RegExp(
          `^${literal(`No pool child can serve executions: isolated-vm 7.0.1 has no binary Node ${node} can load on ${platform} (No native build was found for platform=${process.platform} arch=${process.arch} runtime=node abi=${process.versions.modules} `)}[^)]*${literal(`): this package supports isolated-vm ${SUPPORTED_ISOLATED_VM}, and \`npm rebuild isolated-vm\` run under Node ${node} fixes it.`)}$`,
        ),
      );
    },
    SPAWNS,
  );
});
