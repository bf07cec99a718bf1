/** The path matrix through IsolateExecutor's object form (docs/path-matrix.md). */
import { executorDoor } from './doors/executor.ts';
import { matrix } from './matrix.ts';

matrix(executorDoor);
