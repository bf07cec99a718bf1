/**
 * The published packages as a user gets them: each one packed the way a release packs it (`pnpm
 * pack`, which turns `workspace:` and `catalog:` into versions; `npm pack` leaves them and npm then
 * refuses to install), installed with plain npm under the Node running the test, with `isolated-vm`
 * named without a version as a user names it (npm picks the release), into a folder outside the
 * repository, and driven from there: an execution with a tool, the CLI on a file, the
 * in-process subpath, the client against a server on loopback, the client subpath bundled for a
 * browser and a Worker, and the client bundle in a bare V8 isolate. publint and arethetypeswrong
 * read the same tarballs. Needs the packages built (turbo runs `build` before `test`) and the
 * registry.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SUPPORTED_ISOLATED_VM, satisfiesCaretRange } from '../../src/sandbox/engine-addon.ts';
import { npmEnv } from '../npm-env.ts';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const executorBin = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

/**
 * The packages a release publishes; compat is private (README.md, "Packages"). The runtime is
 * published because the executor imports its built bundle (a dependency, pinned to one version).
 */
const PUBLISHED = ['protocol', 'runtime', 'executor'] as const;
const FLAGS = ['--no-node-snapshot', '--no-wasm-code-gc'];
/** Each test spawns npx, npm's bins or a fresh Node with a pool: seconds alone, far more on a loaded machine. */
const SPAWNS = 120_000;

const pnpmVersion = (
  JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { packageManager: string }
).packageManager.replace(/^pnpm@/, '');

const env = npmEnv();
let scratch = '';
let app = '';
const tarballs = new Map<(typeof PUBLISHED)[number], string>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'codemode-pack-'));
  app = join(scratch, 'app');
  mkdirSync(app);
  for (const name of PUBLISHED) {
    const { stdout } = await run(
      'npx',
      ['--yes', `pnpm@${pnpmVersion}`, 'pack', '--json', '--pack-destination', scratch],
      { cwd: join(repoRoot, 'packages', name), env },
    );
    tarballs.set(name, (JSON.parse(stdout) as { filename: string }).filename);
  }
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs.values(), 'isolated-vm'],
    { cwd: app, env },
  );
  // Packing and a plain npm install from the registry: about 3 min on a fresh machine under Node 26,
  // where npx and npm start with nothing cached for that Node. A bound for a hang, not a timing.
}, 480_000);

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

/** Runs a module in the installed folder, as the application there would, and parses what it prints. */
async function runInApp(source: string, flags: string[] = []): Promise<unknown> {
  const file = join(app, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const { stdout } = await run(process.execPath, [...flags, file], { cwd: app, env });
  return JSON.parse(stdout);
}

/** A command's exit code beside what it printed, so a failing check shows its findings. */
async function exitOf(command: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => relative(dir, join(dir, path)));
}

test(
  'npm picked an isolated-vm in the supported range, and the installed executor reports that release',
  async () => {
    const installed = (
      JSON.parse(readFileSync(join(app, 'node_modules', 'isolated-vm', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    // The run's log says which engine a user of this Node gets today.
    console.info(`pack test: npm installed isolated-vm ${installed} under Node ${process.version}`);
    expect(satisfiesCaretRange(installed, SUPPORTED_ISOLATED_VM)).toBe(true);
    const report = await runInApp(`
    import { IsolateExecutor } from '@supolka/codemode-executor';
    const executor = new IsolateExecutor({ poolSize: 1 });
    const report = await executor.engine();
    await executor.dispose();
    console.log(JSON.stringify({ isolatedVm: report.isolatedVm, node: report.node }));
  `);
    expect(report).toStrictEqual({ isolatedVm: installed, node: process.version });
  },
  SPAWNS,
);

test.each(PUBLISHED)(
  'the installed %s package holds what its users need and nothing of the repository',
  (name) => {
    const installed = join(app, 'node_modules', '@supolka', `codemode-${name}`);
    const files = filesUnder(installed);
    expect(files).toContain('README.md');
    expect(files).toContain('LICENSE');
    expect(files.filter((path) => /^(src|test)\/|\.test\.|\.map$/.test(path))).toStrictEqual([]);

    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const source = JSON.parse(readFileSync(join(repoRoot, 'packages', name, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(source.version);
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository.url).toMatch(/^git\+https:\/\//);
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.keywords.length).toBeGreaterThan(0);
    const specs = Object.values({ ...manifest.dependencies, ...manifest.peerDependencies }) as string[];
    expect(specs.filter((spec) => /^(workspace|catalog):/.test(spec))).toStrictEqual([]);

    // The registry page shows the README outside the repository: a relative link there goes nowhere.
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((target) => !/^(https:\/\/|#)/.test(target))).toStrictEqual([]);
  },
);

test('the installed executor depends on the runtime and the protocol at exactly their versions', () => {
  // The executor's half of the handshake and the runtime bundle change together (README.md, "Packages").
  const installed = (name: string) =>
    JSON.parse(
      readFileSync(join(app, 'node_modules', '@supolka', `codemode-${name}`, 'package.json'), 'utf8'),
    );
  const { dependencies } = installed('executor');
  for (const name of ['protocol', 'runtime'])
    expect(dependencies[`@supolka/codemode-${name}`]).toBe(installed(name).version);
});

test(
  'IsolateExecutor imported from the installed package runs an execution that calls a tool',
  async () => {
    const envelope = await runInApp(`
    import { IsolateExecutor } from '@supolka/codemode-executor';
    const executor = new IsolateExecutor({ timeout: 10_000 });
    const envelope = await executor.execute({
      code: 'async () => { const sum = await math.add(2, 3); console.log("sum", sum); return { sum } }',
      providers: [{ name: 'math', fns: { add: (a, b) => a + b } }],
      outbound: null,
    });
    await executor.dispose();
    console.log(JSON.stringify(envelope));
  `);
    expect(envelope).toStrictEqual({ result: { sum: 5 }, logs: [{ level: 'log', text: 'sum 5' }] });
  },
  SPAWNS,
);

test(
  'the installed /sandbox subpath runs an execution in the process that imports it',
  async () => {
    const envelope = await runInApp(
      `
    import { Sandbox } from '@supolka/codemode-executor/sandbox';
    const sandbox = new Sandbox();
    const envelope = await sandbox.execute({ code: 'async () => 6 * 7' });
    sandbox.dispose();
    console.log(JSON.stringify(envelope));
  `,
      FLAGS,
    );
    expect(envelope).toStrictEqual({ result: 42, logs: [] });
  },
  SPAWNS,
);

test(
  'npx codemode-executor run, in the installed folder, runs a file and prints its envelope',
  async () => {
    writeFileSync(join(app, 'program.js'), 'async () => { console.log("hi"); return 6 * 7 }\n');
    const { stdout } = await run(
      'npx',
      ['--no-install', 'codemode-executor', 'run', 'program.js', '--json'],
      {
        cwd: app,
        env,
      },
    );
    expect(JSON.parse(stdout)).toStrictEqual({ result: 42, logs: [{ level: 'log', text: 'hi' }] });
  },
  SPAWNS,
);

test(
  'the installed client bundle loads in a bare V8 isolate, where no Node built-in or global exists',
  async () => {
    const loaded = await runInApp(
      `
    import { readFileSync } from 'node:fs';
    import { fileURLToPath } from 'node:url';
    import ivm from 'isolated-vm';
    const path = fileURLToPath(import.meta.resolve('@supolka/codemode-protocol/client.bundle.js'));
    const isolate = new ivm.Isolate({ memoryLimit: 64 });
    const context = await isolate.createContext();
    const module = await isolate.compileModule(readFileSync(path, 'utf8'));
    await module.instantiate(context, (specifier) => { throw new Error('the bundle imports ' + specifier); });
    await module.evaluate();
    const client = (await module.namespace.get('ExecutorClient', { reference: true })).typeof;
    const version = await module.namespace.get('PROTOCOL_VERSION', { copy: true });
    const globals = await context.eval('[typeof process, typeof require, typeof Buffer].join()', { copy: true });
    isolate.dispose();
    console.log(JSON.stringify({ client, version, globals }));
  `,
      FLAGS,
    );
    const { PROTOCOL_VERSION } = await import('@supolka/codemode-protocol');
    expect(loaded).toStrictEqual({
      client: 'function',
      version: PROTOCOL_VERSION,
      globals: 'undefined,undefined,undefined',
    });
  },
  SPAWNS,
);

test(
  'the installed client drives a server made by the installed executor, over a WebSocket on loopback',
  async () => {
    const envelope = await runInApp(`
    import { createServer } from '@supolka/codemode-executor';
    import { ExecutorClient } from '@supolka/codemode-protocol/client';
    const token = 'a-token-of-thirty-two-characters';
    const server = await createServer({ port: 0, token, executor: { poolSize: 1 } });
    const socket = new WebSocket(server.url, { headers: { authorization: 'Bearer ' + token } });
    const client = await ExecutorClient.connect(socket);
    const envelope = await client.execute({
      code: 'async () => await math.add(2, 3)',
      providers: [{ name: 'math', fns: { add: (a, b) => a + b } }],
    });
    client.close();
    await server.close();
    console.log(JSON.stringify(envelope));
  `);
    expect(envelope).toStrictEqual({ result: 5, logs: [] });
  },
  SPAWNS,
);

test('the installed client subpath bundles for a browser and a Worker with no Node built-in', async () => {
  // esbuild resolves through the installed package's exports with each platform's conditions, and
  // fails the build on an import of a Node built-in, which neither platform has.
  const { build } = await import('esbuild');
  for (const [platform, conditions] of [
    ['browser', []],
    ['neutral', ['workerd', 'worker', 'browser']],
  ] as const) {
    const result = await build({
      stdin: { contents: "export * from '@supolka/codemode-protocol/client';", resolveDir: app },
      absWorkingDir: app,
      bundle: true,
      platform,
      conditions: [...conditions],
      mainFields: ['module', 'main'],
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((input) => input.includes('@supolka/codemode-protocol/dist/client/'))).toBe(true);
    expect(inputs.filter((input) => input.startsWith('node:'))).toStrictEqual([]);
  }
});

test.each(PUBLISHED)(
  'publint and arethetypeswrong find nothing wrong in the %s tarball',
  async (name) => {
    const tarball = tarballs.get(name) as string;
    const lint = await exitOf(join(executorBin, 'publint'), [tarball, '--strict', '--level', 'suggestion']);
    expect(lint).toMatchObject({ code: 0, output: expect.stringContaining('All good!') });
    // ESM only, on Node 24 (adr/0002): node10 resolution and require() from CommonJS are out of
    // scope. Offline: no lookup of @types packages on the registry.
    const types = await exitOf(join(executorBin, 'attw'), [
      tarball,
      ...['--profile', 'esm-only', '--no-definitely-typed', '--no-emoji', '--no-color'],
    ]);
    expect(types).toMatchObject({ code: 0 });
  },
  SPAWNS,
);
