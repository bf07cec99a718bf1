/**
 * A folder where the built executor loads an isolated-vm of the test's choosing, installed from the
 * registry with npm: the executor's package (package.json, bin, dist) copied under its
 * node_modules, its dependencies linked to the workspace's, and isolated-vm the one npm put there.
 * Node resolves a module from the file's real path, so the copy loads that isolated-vm, and so do
 * the pool children it starts. Needs the package built and the registry.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { npmEnv } from '../npm-env.ts';

const run = promisify(execFile);
const executorDir = fileURLToPath(new URL('../../', import.meta.url));

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
  const executor = join(root, 'node_modules', '@supolka', 'codemode-executor');
  mkdirSync(executor, { recursive: true });
  for (const entry of ['package.json', 'bin', 'dist'])
    cpSync(join(executorDir, entry), join(executor, entry), { recursive: true });
  const manifest = (await import(join(executorDir, 'package.json'), { with: { type: 'json' } })).default as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies)) {
    const link = join(root, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(executorDir, 'node_modules', name)), link);
  }
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
