/**
 * docs/path-matrix.md lists every cell that does not apply, every pending one and every field a
 * door's answer cannot carry, with the door's own reason: a door that gains or loses one without
 * the chapter saying so fails here.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { cliDoor } from './doors/cli.ts';
import { codeModeDoor } from './doors/codemode.ts';
import { denoDoor } from './doors/deno.ts';
import { executorDoor } from './doors/executor.ts';
import { mcpDoor } from './doors/mcp.ts';
import { runCodeDoor } from './doors/run-code.ts';
import { sandboxDoor } from './doors/sandbox.ts';
import { serverDoor } from './doors/server.ts';

const chapter = readFileSync(new URL('../../../../docs/path-matrix.md', import.meta.url), 'utf8');
const DOORS = [sandboxDoor, executorDoor, codeModeDoor, runCodeDoor, serverDoor, denoDoor, cliDoor, mcpDoor];

test.each(DOORS.map((door) => [door.name, door] as const))(
  '%s: every reason is in the chapter',
  (_, door) => {
    const reasons = [
      ...Object.values(door.lacks),
      ...Object.values(door.pending ?? {}),
      ...Object.values(door.omits ?? {}),
    ];
    const missing = reasons.filter((reason) => !chapter.includes(reason));
    expect(missing).toStrictEqual([]);
  },
);
