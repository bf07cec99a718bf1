/**
 * Runs a script under Deno the way the tests that need a real non-Node client do: the registry's
 * `deno` package supplies the binary (its own lookup, no install script run), and the script gets
 * no config, lock file or npm, only the network and files it names, and a cache of the test's own.
 */
import { createRequire } from 'node:module';
import { type CollectedRun, spawnCollecting } from './spawn-collecting.ts';

const require = createRequire(import.meta.url);

export interface DenoScript {
  script: string;
  args: readonly string[];
  /** The only host:port the script may reach. */
  allowNet: string;
  /** The only files the script may read. */
  allowRead: readonly string[];
  /** Deno's cache, which it fills even for a script that imports only a local file. */
  denoDir: string;
}

export function runDenoScript({
  script,
  args,
  allowNet,
  allowRead,
  denoDir,
}: DenoScript): Promise<CollectedRun> {
  const deno: string = require('deno/install_api.cjs').runInstall();
  return spawnCollecting(
    deno,
    [
      'run',
      '--no-config',
      '--no-lock',
      '--no-npm',
      `--allow-net=${allowNet}`,
      `--allow-read=${allowRead.join(',')}`,
      script,
      ...args,
    ],
    {
      env: {
        PATH: process.env.PATH,
        DENO_DIR: denoDir,
        DENO_NO_UPDATE_CHECK: '1',
        NO_COLOR: '1',
      },
    },
  );
}
