#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built: pnpm links a workspace
// package's bins at install, and a bin naming dist/cli/main.js made every first install warn that
// the link could not be created. Everything the command does is in dist/cli/main.js, loaded once
// Node's compile cache is on (dist/cache/compile-cache.js), so what it compiles is kept; but not for
// `cache`, which shows and removes the caches and makes none of its own. The commands that run
// programs start the pool's first child before anything else (dist/executor/early-child.js), so
// its start runs beside their import (its own few modules are compiled without the cache); not
// for help, nor for `mcp login`, which runs none. Below the Node floor that module refuses to
// load, and main.js says why; a child that cannot be started early is the pool's to start.
const [command, ...rest] = process.argv.slice(2);
const help = rest.some((word) => word === '--help' || word === '-h');
const runsPrograms = command === 'run' || command === 'resume' || (command === 'mcp' && rest[0] !== 'login');
if (runsPrograms && !help) {
  await import('../dist/executor/early-child.js').then(
    (early) => early.startFirstChildEarly(),
    () => {},
  );
}
const { enableCommandCompileCache } = await import('../dist/cache/compile-cache.js');
if (command !== 'cache') enableCommandCompileCache();
await import('../dist/cli/main.js');
