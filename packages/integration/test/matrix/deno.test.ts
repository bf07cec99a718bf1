/** The path matrix through `serve` + ExecutorClient from Deno, a subset of the rows (docs/path-matrix.md). */
import { denoDoor } from './doors/deno.ts';
import { matrix } from './matrix.ts';

matrix(denoDoor);
