// The second engine lane (adr/0002): the engine-dependent part of the suite (the sandbox, the
// runtime inside the isolate, the pool, the path matrix, and the pack test) under Node 26, the LTS line
// a new user may run, with isolated-vm 7.0.2. The workspace's own isolated-vm is 7.0.2, whose
// package carries the Node 26 binary beside the Node 24 one, so the source tests need no other
// install; the pack test makes the lane's install root of its own: the packed tarballs and
// `isolated-vm` installed by plain npm under Node 26, outside the repository, the workspace's
// lockfile untouched. tools/run fetches Node 26 into tools/.node26, as it fetches Node 24.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAJOR = 26;
/**
 * Per package, the test folders whose outcome depends on the engine: the executor's sandbox,
 * runtime and pool, its caches on disk (Node's compile cache keeps a folder per Node build, and its
 * account of what it read is Node's own), durable runs (a replay depends on the order the engine
 * observes settlements in), the first child started early by the commands (the CLI's and the
 * bridge's), the retained handlers' calls through the pool and the server, the bridge's approval
 * rounds (durable runs through the pool), and the path matrix and the pack test (the integration
 * package): each feature through each door, on this engine too.
 */
const LANE = [
  [
    'executor',
    [
      'test/sandbox',
      'test/runtime',
      'test/pool',
      'test/cache',
      'test/durable',
      'test/cli/early-child.test.ts',
      'test/executor/handles-host-calls.test.ts',
    ],
  ],
  ['server', ['test/handles-host-calls.test.ts']],
  ['mcp', ['test/early-child.test.ts', 'test/approval-rounds.test.ts']],
  ['integration', ['test/matrix', 'test/pack', 'test/engine']],
];

const root = fileURLToPath(new URL('../', import.meta.url));

function nodeOfLane() {
  if (Number(process.versions.node.split('.')[0]) === MAJOR) return process.execPath;
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  return join(
    root,
    'tools',
    `.node${MAJOR}`,
    'node_modules',
    `node-${process.platform}-${arch}`,
    'bin',
    'node',
  );
}

const node = nodeOfLane();
if (!existsSync(node)) {
  console.error(`node26-lane: no Node ${MAJOR} at ${node}; \`tools/run test\` fetches it from the registry.`);
  process.exit(1);
}
// Its folder first on PATH: npm, npx and every `#!/usr/bin/env node` bin the tests start run under it.
const env = { ...process.env, PATH: [dirname(node), process.env.PATH ?? ''].join(delimiter) };
let failed = false;
for (const [name, folders] of LANE) {
  const cwd = join(root, 'packages', name);
  const run = spawnSync(node, [join(cwd, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...folders], {
    cwd,
    env,
    stdio: 'inherit',
  });
  if (run.error) {
    console.error(`node26-lane: could not start Node ${MAJOR}: ${run.error.message}`);
    process.exit(1);
  }
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
