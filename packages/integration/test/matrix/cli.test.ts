/** The path matrix through `codemode-executor run`, one process per row (docs/path-matrix.md). */
import { cliDoor } from './doors/cli.ts';
import { matrix } from './matrix.ts';

matrix(cliDoor);
