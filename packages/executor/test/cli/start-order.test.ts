/**
 * `run` starts its pool child before it reads the program, its tools and its modules (src/cli/run.ts),
 * so a --tools module that takes long to load (one that imports a client library, say) loads while
 * the child starts, not before it (issue 28). The tools module here waits, while it loads, for a
 * child of the command's process that runs the pool child's entry, for at most 20 s, and exports a
 * tool that says whether it saw one: with the child started after the tools were read, it never
 * could. Linux only: it reads the process's children from /proc.
 */
import { existsSync } from 'node:fs';
import { afterAll, expect, test } from 'vitest';
import { cli, removeScratch, scratch, write } from './cli-process.ts';

const dir = scratch();
afterAll(removeScratch);

const TOOLS = `
import { readFileSync } from 'node:fs';
const children = () => {
  try {
    return readFileSync(\`/proc/\${process.pid}/task/\${process.pid}/children\`, 'utf8').trim().split(/\\s+/).filter(Boolean);
  } catch {
    return [];
  }
};
const runsChildEntry = (pid) => {
  try {
    return readFileSync(\`/proc/\${pid}/cmdline\`, 'utf8').includes('child-start');
  } catch {
    return false;
  }
};
let seen = false;
for (const end = Date.now() + 20_000; !seen && Date.now() < end; ) {
  seen = children().some(runsChildEntry);
  if (!seen) await new Promise((resolve) => setTimeout(resolve, 10));
}
export default { probe: { sawChild: () => seen } };
`;

test.runIf(existsSync(`/proc/${process.pid}/task/${process.pid}/children`))(
  'the pool child is started while the tools module loads',
  () => {
    const tools = write(dir, 'child-watching-tools.mjs', TOOLS);
    const program = write(dir, 'ask.js', 'async () => await probe.sawChild()');
    expect(cli(['run', program, '--tools', tools])).toStrictEqual({
      status: 0,
      signal: null,
      stdout: '{ result: true, logs: [] }\n',
      stderr: '',
    });
  },
);
