/** The path matrix through IsolateExecutor's Code Mode form (docs/path-matrix.md). */
import { codeModeDoor } from './doors/codemode.ts';
import { matrix } from './matrix.ts';

matrix(codeModeDoor);
