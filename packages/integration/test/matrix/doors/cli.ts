/**
 * `codemode-executor run`, the command as a user runs it (the committed bin over the build, in a
 * process of its own per row): the program as statements in a file, the whole catalogue as its
 * --tools module, modules as a --modules JSON file, --timeout, --memory, and the envelope read
 * back from --json; a packages row adds --packages, run from a folder whose node_modules holds the
 * matrix's packages. Exit 1 goes with an error envelope, 0 with a result, 3 with a paused one: a
 * durable row runs with --durable, then `resume` with the token and the answers in files.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExecuteResult, parseForDispatch } from '@supolka/codemode-protocol';
import { PAUSED_EXIT } from '../../../../executor/src/cli/run.ts';
import { BIN } from '../../../../executor/test/cli/cli-process.ts';
import { spawnCollecting } from '../../../../executor/test/spawn-collecting.ts';
import { type Behaviour, type DoorSpec, statementCode } from '../door.ts';
import { fromEnvelope, type Outcome } from '../outcome.ts';
import { ALLOWED_PACKAGES, PACKAGE_DIRECTORIES, usesPackages } from '../package-doors.ts';
import { DURABLE_KEYS_TEXT, pausedThenResumed } from './durable.ts';

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
    // --packages finds names the way Node does, from the working directory: a packages row runs
    // in this folder, whose node_modules links each name to its fixture.
    mkdirSync(join(directory, 'node_modules'));
    for (const [name, folder] of Object.entries(PACKAGE_DIRECTORIES)) {
      symlinkSync(folder, join(directory, 'node_modules', name));
    }
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
  const args = [program, '--json', '--tools', CATALOGUE];
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
  if (usesPackages(behaviour)) {
    args.push('--packages', ALLOWED_PACKAGES.join(','));
    return fromEnvelope(await command('run', args, directory));
  }
  if (behaviour.durable === undefined) return fromEnvelope(await command('run', args));
  // A durable row: run --durable pauses (exit 3), and resume takes the same FILE and options, the
  // token from a file and the answers from another.
  return pausedThenResumed(
    behaviour,
    () => command('run', [...args, '--durable']),
    (token, answers) => {
      const tokenFile = join(directory, `token-${count}.txt`);
      const answersFile = join(directory, `answers-${count}.json`);
      writeFileSync(tokenFile, token);
      writeFileSync(answersFile, JSON.stringify(answers));
      return command('resume', [...args, '--token', tokenFile, '--answers', answersFile]);
    },
    fromEnvelope,
  );
}

/**
 * One command (run or resume) with the matrix's key ring, in `cwd` when given, its printed
 * envelope read back.
 */
async function command(
  name: 'run' | 'resume',
  args: readonly string[],
  cwd?: string,
): Promise<ExecuteResult> {
  const { status, stdout, stderr } = await spawnCollecting(process.execPath, [BIN, name, ...args], {
    timeout: COMMAND_PATIENCE,
    env: { ...process.env, CODEMODE_DURABLE_KEYS: DURABLE_KEYS_TEXT },
    ...(cwd !== undefined ? { cwd } : {}),
  });
  let envelope: ExecuteResult;
  try {
    envelope = parseForDispatch(stdout) as ExecuteResult;
  } catch {
    throw new Error(`codemode-executor ${name} exited ${status} without an envelope; stderr: ${stderr}`);
  }
  // The exit status is the command's half of the mapping: 1 with an error envelope, 3 with a
  // paused one, 0 with a result.
  const expected = envelope.error !== undefined ? 1 : envelope.paused !== undefined ? PAUSED_EXIT : 0;
  if (status !== expected) {
    throw new Error(`codemode-executor ${name} exited ${status} with ${stdout}; stderr: ${stderr}`);
  }
  return envelope;
}
