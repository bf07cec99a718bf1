/**
 * Every code block of the pages a user reads first (docs/README.md and docs/start/) does what the
 * page says: each page's blocks run in order in a fresh app folder, as a reader following the page
 * would run them there, files saved, programs and commands run, a command that serves left serving
 * for the blocks after it; each must exit 0 and, where the page shows what it prints, print exactly
 * that. The app folder maps the package names onto the builds, as an install of the tarballs would:
 * its node_modules links each @supolka package to its folder here (whose `exports` point at dist/)
 * and each command to its bin. The few blocks no test can run (an install from the registry, a
 * desktop client's own configuration) are listed below with the reason.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { npmEnv } from '../../../executor/test/npm-env.ts';
import { type CodeBlock, codeBlocksOf } from './code-blocks.ts';
import { REPOSITORY_ROOT } from './repository.ts';

/** The pages a user reads first: the index and one getting-started page per door. */
const PAGES = [
  'docs/README.md',
  ...readdirSync(join(REPOSITORY_ROOT, 'docs', 'start'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/start/${name}`),
];

/**
 * The blocks no test runs, by page and first line, each for its reason. A block marked `no-run` that
 * is not here fails the test, so leaving one unrun is a decision made here, not on the page.
 */
const NOT_RUN: [page: string, firstLine: string][] = [
  // Installing from the registry, which does not serve the packages yet; the pack test installs
  // the same packages from their tarballs (packages/integration/test/pack).
  ['docs/README.md', 'git clone https://github.com/supolka/codemode.git'],
  ['docs/start/cli.md', 'npm install /path/to/codemode/dist-tarballs/*.tgz isolated-vm'],
  ['docs/start/library.md', 'npm install /path/to/codemode/dist-tarballs/*.tgz isolated-vm'],
  ['docs/start/mcp.md', 'npm install /path/to/codemode/dist-tarballs/*.tgz isolated-vm'],
  ['docs/start/server.md', 'npm install /path/to/codemode/dist-tarballs/*.tgz isolated-vm'],
  // A desktop client's own file, read by that client; the page's client program starts the same
  // command the same way.
  ['docs/start/mcp.md', '{'],
];

/** Links in an app's node_modules, as an install of the tarballs and the page's other packages makes them. */
const PACKAGES: [name: string, folder: string][] = [
  ['@supolka/codemode-executor', join(REPOSITORY_ROOT, 'packages/executor')],
  ['@supolka/codemode-protocol', join(REPOSITORY_ROOT, 'packages/protocol')],
  ['@supolka/codemode-server', join(REPOSITORY_ROOT, 'packages/server')],
  ['@supolka/codemode-mcp', join(REPOSITORY_ROOT, 'packages/mcp')],
  ...['isolated-vm', 'zod', '@modelcontextprotocol/sdk', '@modelcontextprotocol/server-filesystem'].map(
    (name): [string, string] => [
      name,
      realpathSync(join(REPOSITORY_ROOT, 'packages/integration/node_modules', name)),
    ],
  ),
];
/** A block's program or command: seconds, far more on a loaded machine or with npx's cache cold. */
const BLOCK = 120_000;

const env = npmEnv();
// A reader's shell, not pnpm's: pnpm sets NODE_PATH to the workspace's packages for its scripts.
delete env.NODE_PATH;
// A home folder of the test's own: a page's MCP client starts the bridge with the SDK's short list
// of variables (HOME among them, CODEMODE_CACHE not), so the bridge's pool kept its start in the
// user's own cache. npm keeps reading the user's cache and configuration.
const home = mkdtempSync(join(tmpdir(), 'codemode-docs-home-'));
env.npm_config_cache ??= join(homedir(), '.npm');
env.npm_config_userconfig ??= join(homedir(), '.npmrc');
env.HOME = home;
delete env.XDG_CACHE_HOME;

const apps: string[] = [home];
afterAll(() => {
  for (const app of apps) rmSync(app, { recursive: true, force: true });
});

/** A fresh app folder with the packages installed as links, and their commands in node_modules/.bin. */
function makeApp(): string {
  const app = mkdtempSync(join(tmpdir(), 'codemode-docs-'));
  apps.push(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true });
  for (const [name, folder] of PACKAGES) {
    mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true });
    symlinkSync(folder, join(app, 'node_modules', name));
    const { bin } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
      bin?: Record<string, string>;
    };
    for (const [command, file] of Object.entries(bin ?? {})) {
      symlinkSync(join(folder, file), join(app, 'node_modules', '.bin', command));
    }
  }
  return app;
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function finished(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a `run` block in the app as the page tells the reader to: a saved program with node, commands with sh. */
function runBlock(app: string, block: CodeBlock): Promise<Finished> {
  if (block.language === 'sh') return finished(spawn('sh', ['-e', '-c', block.text], { cwd: app, env }));
  const file = block.file ?? `block-${block.line}.mjs`;
  writeFileSync(join(app, file), block.text);
  return finished(spawn(process.execPath, [file], { cwd: app, env }));
}

/** A command that serves until stopped, started in a process group of its own so all of it stops. */
class Serving {
  readonly #child: ChildProcess;
  readonly #done: Promise<Finished>;
  #output = '';

  constructor(app: string, block: CodeBlock) {
    this.#child = spawn('sh', ['-e', '-c', block.text], { cwd: app, env, detached: true });
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      stream?.on('data', (chunk: Buffer) => {
        this.#output += chunk.toString('utf8');
      });
    }
    this.#done = finished(this.#child);
  }

  /** Resolves once it printed `serving on`; rejects with what it printed if it ended before. */
  async up(): Promise<void> {
    let exited = false;
    const ended = this.#done.then((end) => {
      exited = true;
      throw new Error(`it exited ${end.code} before serving:\n${this.#output}`);
    });
    const serving = new Promise<void>((resolve) => {
      const check = () => {
        if (this.#output.includes('serving on')) resolve();
        else if (!exited) setTimeout(check, 50);
      };
      check();
    });
    await Promise.race([serving, ended]);
  }

  /** SIGTERM to its process group, then what it printed once every process of it closed its output. */
  async stop(): Promise<string> {
    if (this.#child.exitCode === null && this.#child.pid !== undefined) {
      try {
        process.kill(-this.#child.pid, 'SIGTERM');
      } catch {
        // The group has gone already.
      }
    }
    await this.#done.catch(() => undefined);
    return this.#output;
  }
}

const shown = (run: Finished) => `exit ${run.code}\n--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;

test('the pages are there, and every block left unrun is one listed here with its reason', () => {
  expect(PAGES).toStrictEqual([
    'docs/README.md',
    'docs/start/cli.md',
    'docs/start/library.md',
    'docs/start/mcp.md',
    'docs/start/server.md',
  ]);
  const unrun = PAGES.flatMap((page) =>
    codeBlocksOf(readFileSync(join(REPOSITORY_ROOT, page), 'utf8'))
      .filter((block) => block.kind === 'no-run')
      .map((block) => [page, block.text.split('\n')[0]]),
  );
  expect(unrun.sort()).toStrictEqual([...NOT_RUN].sort());
});

describe.each(PAGES)('%s', (page) => {
  const blocks = codeBlocksOf(readFileSync(join(REPOSITORY_ROOT, page), 'utf8'));
  const app = makeApp();
  const serving: Serving[] = [];
  let last: { block: CodeBlock; run: Finished } | undefined;

  afterAll(async () => {
    for (const server of serving) await server.stop();
  });

  test('runs at least one program', () => {
    expect(blocks.filter((block) => block.kind === 'run').length).toBeGreaterThan(0);
  });

  for (const block of blocks) {
    if (block.kind === 'no-run') continue;
    const title = `line ${block.line}: ${block.kind}${block.file === undefined ? '' : ` ${block.file}`}`;
    test(
      title,
      async () => {
        if (block.kind === 'file') {
          writeFileSync(join(app, block.file as string), block.text);
        } else if (block.kind === 'serves') {
          const server = new Serving(app, block);
          serving.push(server);
          await server.up();
        } else if (block.kind === 'run') {
          const run = await runBlock(app, block);
          last = { block, run };
          expect(run.code, shown(run)).toBe(0);
        } else {
          expect(last, 'an output block follows the block it is the output of').toBeDefined();
          expect(last?.run.stdout, `the output of line ${last?.block.line}`).toBe(block.text);
        }
      },
      BLOCK,
    );
  }

  test('what served stops on SIGTERM', async () => {
    for (const server of serving.splice(0)) expect(await server.stop()).toContain('stopped');
  });
});
