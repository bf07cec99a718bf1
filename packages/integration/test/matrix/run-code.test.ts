/** The path matrix through @cloudflare/codemode's runCode over IsolateExecutor (docs/path-matrix.md). */
import { runCodeDoor } from './doors/run-code.ts';
import { matrix } from './matrix.ts';

matrix(runCodeDoor);
