/**
 * Imported first by the package's entries, for its effect: below the Node floor the import throws
 * the floor's sentence (node-floor.ts) before the rest of the package is evaluated.
 */
import { belowNodeFloor } from './node-floor.ts';

const refusal = belowNodeFloor();
if (refusal !== undefined) throw new Error(refusal);
