/** The path matrix through `serve` + ExecutorClient in Node (docs/path-matrix.md). */
import { serverDoor } from './doors/server.ts';
import { matrix } from './matrix.ts';

matrix(serverDoor);
