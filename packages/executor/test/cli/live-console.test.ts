/**
 * `run` shows the program's console lines while it runs: on stderr, as each is written, when
 * stderr is a terminal or with --stream, while stdout holds the envelope alone, byte for byte what
 * it holds without them. Before, nothing showed until the run ended.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, cli, removeScratch, scratch, write } from './cli-process.ts';

afterAll(removeScratch);

const directory = scratch();
const program = write(directory, 'counts.js', `console.log('one'); console.warn('two'); return 3`);
const envelope =
  "{\n  result: 3,\n  logs: [ { level: 'log', text: 'one' }, { level: 'warn', text: 'two' } ]\n}\n";

describe('run --stream', () => {
  test('writes each line to stderr as the program writes it, before the run ends', async () => {
    // The tool waits until the test has read the first line from the command's stderr, so the run
    // cannot end before it has shown that line: a command that showed nothing until the end
    // would wait here until it is killed.
    const tools = write(
      directory,
      'gate.mjs',
      `export default { gate: { open: () => new Promise((resolve) => process.stdin.once('data', () => resolve('opened'))) } }`,
    );
    const gated = write(
      directory,
      'gated.js',
      `console.log('before the gate'); const answer = await gate.open(); console.log('after the gate'); return answer`,
    );
    const child = spawn(process.execPath, [BIN, 'run', gated, '--tools', tools, '--stream']);
    try {
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      const exited = once(child, 'exit');
      const firstLine = new Promise<void>((resolve, reject) => {
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          if (stderr.includes('before the gate\n')) resolve();
        });
        void exited.then(() => reject(new Error(`the command ended first; stderr: ${stderr}`)));
      });
      await firstLine;
      expect(stdout).toBe('');
      child.stdin.end('open\n');
      const [status] = await exited;
      expect({ status, stdout, stderr }).toStrictEqual({
        status: 0,
        stdout:
          "{\n  result: 'opened',\n  logs: [\n    { level: 'log', text: 'before the gate' },\n    { level: 'log', text: 'after the gate' }\n  ]\n}\n",
        stderr: 'before the gate\nafter the gate\n',
      });
    } finally {
      child.kill();
    }
  }, 60_000);

  test('leaves stdout as it is without it: the envelope, and with --json the same one line', () => {
    const streamed = cli(['run', program, '--stream']);
    expect(streamed).toStrictEqual({ status: 0, signal: null, stdout: envelope, stderr: 'one\ntwo\n' });
    const json = cli(['run', program, '--json']);
    const streamedJson = cli(['run', program, '--json', '--stream']);
    expect(json.stdout).toBe(
      '{"result":3,"logs":[{"level":"log","text":"one"},{"level":"warn","text":"two"}]}\n',
    );
    expect(streamedJson).toStrictEqual({ ...json, stderr: 'one\ntwo\n' });
  });
});

describe('run without --stream', () => {
  test('writes nothing to a stderr that is no terminal', () => {
    expect(cli(['run', program])).toStrictEqual({ status: 0, signal: null, stdout: envelope, stderr: '' });
  });

  test('shows the lines on a terminal: stderr and stdout on one, the lines first', () => {
    // util-linux's script gives the command a terminal for stdin, stdout and stderr alike, and
    // copies what it shows to its own stdout (a terminal ends lines with \r\n, and colours values).
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run ${JSON.stringify(program)}`;
    const run = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    return new Promise<void>((resolve, reject) => {
      let shown = '';
      run.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        shown += chunk;
      });
      run.on('error', reject);
      run.on('exit', (status) => {
        try {
          expect(status).toBe(0);
          // Colours and line ends as the terminal shows them, taken out to read the text.
          const text = stripVTControlCharacters(shown).replace(/\r\n/g, '\n');
          expect(text).toBe(`one\ntwo\n${envelope}`);
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
  }, 60_000);
});
