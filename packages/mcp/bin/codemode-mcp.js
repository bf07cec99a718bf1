#!/usr/bin/env node
// The command's bin, committed so that it exists before dist/ is built (pnpm links a workspace
// package's bins at install). The pool's first child starts first (the executor's early-child
// entry), so its start runs beside the command's import; not for help, nor for `login`, which runs
// no program. Below the Node floor that entry refuses to load and main.js says why; a child that
// cannot be started early is the pool's to start. Everything the command does is in dist/main.js,
// loaded once Node's compile cache is on (the executor's compile-cache entry), so what it compiles
// is kept.
const words = process.argv.slice(2);
const help = words.some((word) => ['--help', '-h', 'help', '--version', '-v'].includes(word));
if (!help && words[0] !== 'login') {
  await import('@supolka/codemode-executor/early-child').then(
    (early) => early.startFirstChildEarly(),
    () => {},
  );
}
const { enableCommandCompileCache } = await import('@supolka/codemode-executor/compile-cache');
enableCommandCompileCache();
await import('../dist/main.js');
