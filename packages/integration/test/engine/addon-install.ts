/**
 * A folder where the built executor and server load an isolated-vm of the test's choosing,
 * installed from the registry with npm: the executor's and the server's packages (package.json,
 * bin, dist) copied under its node_modules, their dependencies linked to the workspace's, and
 * isolated-vm the one npm put there.
 * Node resolves a module from the file's real path, so the copy loads that isolated-vm, and so do
 * the pool children it starts. Needs the package built and the registry.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { npmEnv } from '../../../executor/test/npm-env.ts';

const run = promisify(execFile);
const packagesDir = fileURLToPath(new URL('../../../', import.meta.url));
/** The packages copied in, each beside the other as a flat install puts them. */
const COPIED = ['executor', 'server'];

export interface AddonInstall {
  readonly root: string;
  /** The copied executor package, as `node_modules/@supolka/codemode-executor` holds it. */
  readonly executor: string;
  /** The isolated-vm npm installed. */
  readonly isolatedVm: string;
  /** Runs an ES module in the folder and answers what it printed, parsed. */
  script(source: string): Promise<unknown>;
  /** Runs the copied `codemode-executor` bin with `args`; answers its exit code and output. */
  cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  remove(): void;
}

export async function installWithIsolatedVm(spec: string): Promise<AddonInstall> {
  const root = mkdtempSync(join(tmpdir(), 'codemode-addon-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  // No install script: a release without a binary for this Node would try to compile one.
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', spec], {
    cwd: root,
    env: npmEnv(),
  });
  for (const name of COPIED) {
    const source = join(packagesDir, name);
    const target = join(root, 'node_modules', '@supolka', `codemode-${name}`);
    mkdirSync(target, { recursive: true });
    for (const entry of ['package.json', 'bin', 'dist'])
      cpSync(join(source, entry), join(target, entry), { recursive: true });
    const manifest = (await import(join(source, 'package.json'), { with: { type: 'json' } })).default as {
      dependencies: Record<string, string>;
    };
    // The packages copied here resolve to their copies; every other dependency to the workspace's.
    for (const dependency of Object.keys(manifest.dependencies)) {
      if (COPIED.some((copied) => dependency === `@supolka/codemode-${copied}`)) continue;
      const link = join(root, 'node_modules', dependency);
      mkdirSync(dirname(link), { recursive: true });
      try {
        symlinkSync(realpathSync(join(source, 'node_modules', dependency)), link);
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
    }
  }
  const executor = join(root, 'node_modules', '@supolka', 'codemode-executor');
  const env = { ...npmEnv() };
  return {
    root,
    executor,
    isolatedVm: join(root, 'node_modules', 'isolated-vm'),
    async script(source) {
      const file = join(root, `script-${Math.random().toString(36).slice(2)}.mjs`);
      writeFileSync(file, source);
      const { stdout } = await run(process.execPath, [file], { cwd: root, env });
      return JSON.parse(stdout);
    },
    async cli(args) {
      try {
        const { stdout, stderr } = await run(
          process.execPath,
          [join(executor, 'bin', 'codemode-executor.js'), ...args],
          {
            cwd: root,
            env,
          },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
