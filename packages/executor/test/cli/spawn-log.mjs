// Preloaded with --import into a command's own process (not its children's): appends a line of
// JSON for each process the command spawns, its arguments, its pid and whether it was the child its
// bin started early (startEarlyChild on the stack), to the file SPAWN_LOG names, so a test can tell
// which pool children a command started, how, and whether they are gone.
import childProcess from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const log = process.env.SPAWN_LOG;
const spawn = childProcess.spawn;
childProcess.spawn = function spawnLogged(file, args, ...rest) {
  const early = new Error().stack?.includes('startEarlyChild') === true;
  const child = spawn.call(this, file, args, ...rest);
  if (log !== undefined) appendFileSync(log, `${JSON.stringify({ file, args, pid: child.pid, early })}\n`);
  return child;
};
syncBuiltinESMExports();
