/** The path matrix through `codemode-executor mcp` over stdio (docs/path-matrix.md). */
import { mcpDoor } from './doors/mcp.ts';
import { matrix } from './matrix.ts';

matrix(mcpDoor);
