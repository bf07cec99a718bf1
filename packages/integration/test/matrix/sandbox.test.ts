/** The path matrix through the in-process Sandbox (docs/path-matrix.md). */
import { sandboxDoor } from './doors/sandbox.ts';
import { matrix } from './matrix.ts';

matrix(sandboxDoor);
