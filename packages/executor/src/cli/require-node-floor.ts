/**
 * Imported first by the CLI, for its effect: below the Node floor the command prints the floor's
 * sentence (node-floor.ts) and exits 1, before the rest of the CLI is evaluated and with no stack.
 */
import { belowNodeFloor } from '../node-floor.ts';

const refusal = belowNodeFloor();
if (refusal !== undefined) {
  process.stderr.write(`codemode-executor: ${refusal}\n`);
  process.exit(1);
}
