/**
 * The published packages as a user gets them: each one packed the way a release packs it (`pnpm
 * pack`, which turns `workspace:` and `catalog:` into versions; `npm pack` leaves them and npm then
 * refuses to install), by tools/pack.mjs, the script `tools/run pack` runs, installed with plain npm under the Node running the test, with `isolated-vm`
 * named without a version as a user names it (npm picks the release), into a folder outside the
 * repository, and driven from there: an execution with a tool, the CLI on a file, the
 * in-process subpath, the client against a server on loopback, the client subpath bundled for a
 * browser and a Worker, and the client bundle in a bare V8 isolate. publint and arethetypeswrong
 * read the same tarballs. Needs the packages built (turbo runs `build` before `test`) and the
 * registry.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BUNDLER_MISSING_MESSAGE } from '../../../executor/src/packages/bundler.ts';
import {
  SUPPORTED_ISOLATED_VM,
  satisfiesCaretRange,
} from '../../../executor/src/sandbox/setup/engine-addon.ts';
import { npmEnv } from '../../../executor/test/npm-env.ts';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const executorBin = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url));

/**
 * The packages a release publishes; compat and integration are private (README.md, "Packages").
 * The runtime is published because the executor imports its built bundle (a dependency, pinned to
 * one version).
 */
const PUBLISHED = ['protocol', 'runtime', 'executor', 'packages', 'server', 'mcp'] as const;
/** What a library user installs: the executor and what it depends on, no server and no MCP bridge. */
const LIBRARY = ['protocol', 'runtime', 'executor'] as const;
/** Packages only the server, the MCP bridge and the bundler bring; an install of the library alone has none of them. */
const SERVING_ONLY = [
  // The bundler of allowed packages and its native binary (adr/0006).
  '@supolka/codemode-packages',
  'esbuild',
  'ws',
  'pino',
  'prom-client',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/core',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/node',
  'hono',
  'express',
];
const FLAGS = ['--no-node-snapshot', '--no-wasm-code-gc'];
/** Each test spawns npx, npm's bins or a fresh Node with a pool: seconds alone, far more on a loaded machine. */
const SPAWNS = 120_000;

/** The script of `tools/run pack`: every published package packed with pnpm into one folder. */
const PACK_SCRIPT = join(repoRoot, 'tools', 'pack.mjs');

// A user's shell, not pnpm's: pnpm sets NODE_PATH to the workspace's packages for the scripts it runs.
const env = npmEnv();
delete env.NODE_PATH;
let scratch = '';
let app = '';
let library = '';
const tarballs = new Map<(typeof PUBLISHED)[number], string>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'codemode-pack-'));
  app = join(scratch, 'app');
  mkdirSync(app);
  // Packed by the script `tools/run pack` runs, as a user following examples/README.md packs them.
  const { stdout } = await run(process.execPath, [PACK_SCRIPT, '--destination', scratch, '--json'], { env });
  const packed = JSON.parse(stdout) as string[];
  for (const [index, name] of PUBLISHED.entries()) tarballs.set(name, packed[index] as string);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs.values(), 'isolated-vm'],
    { cwd: app, env },
  );
  // A second folder with the library alone, as an embedder installs it (npm's cache is warm now).
  library = join(scratch, 'library');
  mkdirSync(library);
  writeFileSync(
    join(library, 'package.json'),
    JSON.stringify({ name: 'library', private: true, type: 'module' }),
  );
  const libraryTarballs = LIBRARY.map((name) => tarballs.get(name) as string);
  await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', ...libraryTarballs, 'isolated-vm'],
    {
      cwd: library,
      env,
    },
  );
  // Packing and a plain npm install from the registry: about 3 min on a fresh machine under Node 26,
  // where npx and npm start with nothing cached for that Node. A bound for a hang, not a timing.
}, 480_000);

// Two installed trees of thousands of files: removing them took more than vitest's 10 s on a loaded
// two-core machine (a CI run failed there with every test passed), and a synchronous removal holds
// the event loop the whole time. Removed without blocking, under the same bound as a spawn.
afterAll(async () => {
  if (scratch !== '') await rm(scratch, { recursive: true, force: true, maxRetries: 3 });
}, SPAWNS);

/** Runs a module in the installed folder, as the application there would, and parses what it prints. */
async function runInApp(source: string, flags: string[] = []): Promise<unknown> {
  const file = join(app, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const { stdout } = await run(process.execPath, [...flags, file], { cwd: app, env });
  return JSON.parse(stdout);
}

/** A command's exit code beside what it printed, so a failing check shows its findings. */
async function exitOf(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return exitOfIn(undefined, command, args);
}

async function exitOfIn(
  cwd: string | undefined,
  command: string,
  args: readonly string[],
): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(command, [...args], { env, cwd });
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

test('the pack script left exactly the six published tarballs in the folder it was given', () => {
  const version = (name: string) =>
    (
      JSON.parse(readFileSync(join(repoRoot, 'packages', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  const expected = PUBLISHED.map((name) => join(scratch, `supolka-codemode-${name}-${version(name)}.tgz`));
  expect([...tarballs.values()]).toStrictEqual(expected);
  expect(
    readdirSync(scratch)
      .filter((file) => file.endsWith('.tgz'))
      .sort(),
  ).toStrictEqual(expected.map((path) => relative(scratch, path)).sort());
});

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
  "the installed executor answers a program's import() on the isolated-vm npm picked",
  async () => {
    // isolated-vm 7.0.2 (what npm picked in late 2026) has an import() callback the sandbox does
    // not register; every import() answered "Not supported" there while the workspace's 7.0.1 passed.
    const envelope = await runInApp(`
    import { IsolateExecutor } from '@supolka/codemode-executor';
    const executor = new IsolateExecutor({ poolSize: 1 });
    const envelope = await executor.execute({
      modules: { 'lib.js': 'export const answer = 6 * 7' },
      code: 'async () => (await import("./lib.js")).answer',
    });
    await executor.dispose();
    console.log(JSON.stringify(envelope));
  `);
    expect(envelope).toStrictEqual({ result: 42, logs: [] });
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
  'with @supolka/codemode-packages installed beside it, a program imports a package the executor allows; without it, the executor says what to install',
  async () => {
    // zod is in both installs (the protocol depends on it), so the app allows it from its own folder.
    const source = (folder: string) => `
    import { IsolateExecutor } from '@supolka/codemode-executor';
    const executor = new IsolateExecutor({ poolSize: 1, packages: ['zod'], packagesBase: ${JSON.stringify(folder)} });
    try {
      const envelope = await executor.execute({
        code: 'async () => { const { z } = await import("zod"); return z.object({ n: z.number() }).parse({ n: 7 }) }',
      });
      console.log(JSON.stringify(envelope));
    } catch (error) {
      console.log(JSON.stringify({ thrown: error.message }));
    } finally {
      await executor.dispose();
    }`;
    expect(await runInApp(source(app))).toStrictEqual({ result: { n: 7 }, logs: [] });
    const file = join(library, 'bundler-missing.mjs');
    writeFileSync(file, source(library));
    const { stdout } = await run(process.execPath, [file], { cwd: library, env });
    expect(JSON.parse(stdout)).toStrictEqual({
      error: `IsolateExecutor option packages cannot be served: ${BUNDLER_MISSING_MESSAGE}`,
      code: 'BAD_REQUEST',
      logs: [],
    });
  },
  SPAWNS,
);

test('an install of the library alone holds no server, metrics, logging, MCP or bundler package', () => {
  const present = SERVING_ONLY.filter((name) => {
    try {
      statSync(join(library, 'node_modules', name));
      return true;
    } catch {
      return false;
    }
  });
  expect(present).toStrictEqual([]);
  // The install's size, for the run's log (the restructure's note compares it with the full one).
  const bytes = (dir: string) =>
    filesUnder(dir).reduce((sum, path) => sum + statSync(join(dir, path)).size, 0);
  console.info(
    `pack test: node_modules holds ${bytes(join(library, 'node_modules'))} bytes with the library alone, ${bytes(join(app, 'node_modules'))} with every package`,
  );
});

test(
  'codemode-executor serve and mcp without their packages say how to install them, exit 1',
  async () => {
    for (const [command, name] of [
      ['serve', '@supolka/codemode-server'],
      ['mcp', '@supolka/codemode-mcp'],
    ] as const) {
      const { code, output } = await exitOfIn(library, 'npx', ['--no-install', 'codemode-executor', command]);
      expect(code).toBe(1);
      expect(output).toContain(`The ${command} command lives in ${name}, which is not installed here`);
      expect(output).toContain(`npm install ${name}`);
    }
  },
  SPAWNS,
);

test(
  'the command run in a folder whose node_modules holds a package of that name runs none of its code',
  async () => {
    // A folder the user only visits (a cloned repository, a download), not the install: the
    // executor resolves its commands from where it is installed, never from the working directory.
    const visited = join(scratch, 'visited');
    const planted = join(visited, 'node_modules', '@supolka', 'codemode-server');
    mkdirSync(planted, { recursive: true });
    const marker = join(visited, 'ran');
    writeFileSync(
      join(planted, 'package.json'),
      JSON.stringify({
        name: '@supolka/codemode-server',
        type: 'module',
        exports: { './command': './command.js' },
      }),
    );
    writeFileSync(
      join(planted, 'command.js'),
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran'); export const USAGE = ''; export async function runCommand() { return 0; }`,
    );
    const bin = join(library, 'node_modules', '.bin', 'codemode-executor');
    const { code, output } = await exitOfIn(visited, bin, ['serve']);
    expect(code).toBe(1);
    expect(output).toContain(
      'The serve command lives in @supolka/codemode-server, which is not installed here',
    );
    expect(existsSync(marker)).toBe(false);
  },
  SPAWNS,
);

test(
  'with the packages installed beside it, codemode-executor serve and mcp are theirs, as are their own bins',
  async () => {
    for (const [args, usage] of [
      [['codemode-executor', 'serve', '--help'], 'Usage: codemode-executor serve'],
      [['codemode-executor', 'help', 'mcp'], 'Usage: codemode-executor mcp'],
      [['codemode-server', '--help'], 'Usage: codemode-executor serve'],
      [['codemode-mcp', '--help'], 'Usage: codemode-executor mcp'],
    ] as const) {
      const { code, output } = await exitOfIn(app, 'npx', ['--no-install', ...args]);
      expect({ args, code, start: output.slice(0, usage.length) }).toStrictEqual({
        args,
        code: 0,
        start: usage,
      });
    }
  },
  SPAWNS,
);

test(
  "the installed commands' help names a chapter only by its URL, since no package ships docs/",
  async () => {
    for (const args of [
      ['codemode-executor', 'help'],
      ['codemode-executor', 'help', 'run'],
      ['codemode-server', '--help'],
      ['codemode-mcp', '--help'],
    ]) {
      const { code, output } = await exitOfIn(app, 'npx', ['--no-install', ...args]);
      const bare = output.replace(
        /https:\/\/github\.com\/supolka\/codemode\/blob\/main\/docs\/[\w.-]+\.md/g,
        '',
      );
      expect({ args, code, bare: bare.match(/docs\/[\w.-]+/g) ?? [] }).toStrictEqual({
        args,
        code: 0,
        bare: [],
      });
    }
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
    import { createServer } from '@supolka/codemode-server';
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
