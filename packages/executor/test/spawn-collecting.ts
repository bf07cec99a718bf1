/**
 * Runs a child to its end and answers its exit status with everything it printed. Tests that drive
 * a real process (the command, a Deno client) read its output whole once it has closed, so the
 * helper waits for 'close' rather than 'exit': by then both pipes have been read to their end.
 */
import { type SpawnOptions, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface CollectedRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export async function spawnCollecting(
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): Promise<CollectedRun> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}
