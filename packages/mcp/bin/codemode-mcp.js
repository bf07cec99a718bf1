#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built (pnpm links a workspace
// package's bins at install). The pool's first child starts first (the executor's early-child
// entry), so its start runs beside the command's import; a command line that asks for help ends it
// unused, and below the Node floor that entry refuses to load and main.js says why. Everything the
// command does is in dist/main.js, loaded once Node's compile cache is on (the executor's
// compile-cache entry), so what it compiles is kept.
const help = process.argv.slice(2).some((word) => ['--help', '-h', 'help', '--version', '-v'].includes(word));
if (!help) {
  await import('@supolka/codemode-executor/early-child').then(
    (early) => early.startFirstChildEarly(),
    () => {},
  );
}
const { enableCommandCompileCache } = await import('@supolka/codemode-executor/compile-cache');
enableCommandCompileCache();
await import('../dist/main.js');
