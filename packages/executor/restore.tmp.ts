// Usage: restore.ts <root> <count>: the runtime snapshot, then <count> isolate + context from it.
const [root, countText] = process.argv.slice(2);
const ivm = (await import('isolated-vm')).default;
const { readRuntimeSnapshot } = await import(`${root}/packages/executor/src/sandbox/runtime.ts`);
const snapshot = readRuntimeSnapshot();
for (let i = 0; i < Number(countText); i++) {
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  isolate.createContextSync();
  isolate.dispose();
}
