/**
 * `codemode-executor run`, the command as a user runs it (the committed bin over the build, in a
 * process of its own per row): the program as statements in a file, the whole catalogue as its
 * --tools module, modules as a --modules JSON file, --timeout, --memory, and the envelope read
 * back from --json. Exit 1 goes with an error envelope, 0 with a result.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseForDispatch } from '@supolka/codemode-protocol';
import { BIN } from '../../../../executor/test/cli/cli-process.ts';
import { spawnCollecting } from '../../../../executor/test/spawn-collecting.ts';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromEnvelope, type Outcome } from '../outcome.ts';

const CATALOGUE = new URL('../catalogue.ts', import.meta.url).pathname;
/** Ends a command that hangs, so the row fails on its outcome instead of the test's timeout. */
const COMMAND_PATIENCE = 50_000;

export const cliDoor: DoorSpec = {
  name: 'codemode-executor run',
  takes: 'statements',
  lacks: {
    'proxied-fetch': '--outbound is disabled or native: a command line has no function to proxy through',
    'loopback-opt-in':
      'the command has no loopback opt-in: native fetch reaches public addresses only, which a test cannot serve',
    // Streamed, but to the test reading stderr: executor test/cli/live-console.test.ts.
    'stream-console': "the lines go to the command's stderr (--stream), which its --tools module cannot hear",
    nesting: "a --tools module has no handle on the command's own executor",
    cancel: 'the command takes no cancellation: ending its process ends the run',
    retain: 'the command ends after one run, so no handler outlives it',
  },
  async open() {
    const directory = mkdtempSync(join(tmpdir(), 'codemode-matrix-cli-'));
    let count = 0;
    return {
      run: (behaviour) => run(directory, ++count, behaviour),
      close: async () => rmSync(directory, { recursive: true, force: true }),
    };
  },
};

async function run(directory: string, count: number, behaviour: Behaviour): Promise<Outcome> {
  const program = join(directory, `program-${count}.ts`);
  writeFileSync(program, statementCode(behaviour));
  const args = [BIN, 'run', program, '--json', '--tools', CATALOGUE];
  if (behaviour.modules !== undefined) {
    const modules = join(directory, `modules-${count}.json`);
    writeFileSync(modules, JSON.stringify(behaviour.modules));
    args.push('--modules', modules);
  }
  if (behaviour.timeout !== undefined) args.push('--timeout', String(behaviour.timeout));
  if (behaviour.wallClockLimit !== undefined)
    args.push('--wall-clock-limit', String(behaviour.wallClockLimit));
  if (behaviour.memoryLimit !== undefined) args.push('--memory', String(behaviour.memoryLimit));
  if (behaviour.outbound === 'native') args.push('--outbound', 'native');
  if (behaviour.consoleFormat !== undefined) args.push('--console-format', behaviour.consoleFormat);
  const { status, stdout, stderr } = await spawnCollecting(process.execPath, args, {
    timeout: COMMAND_PATIENCE,
  });
  let envelope: Parameters<typeof fromEnvelope>[0];
  try {
    envelope = parseForDispatch(stdout) as typeof envelope;
  } catch {
    throw new Error(`codemode-executor run exited ${status} without an envelope; stderr: ${stderr}`);
  }
  const outcome = fromEnvelope(envelope);
  // The exit status is the command's half of the mapping: 1 with an error envelope, 0 with a result.
  if (status !== (outcome.error === undefined ? 0 : 1)) {
    throw new Error(`codemode-executor run exited ${status} with ${stdout}; stderr: ${stderr}`);
  }
  return outcome;
}
