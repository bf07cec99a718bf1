/**
 * Registers the rows of the path matrix against one door: the door is opened once for the file
 * (one executor, server or bridge per door per file), every row it can meet is a test, and each
 * answers the row's outcome after the door's mapping. A loopback HTTP server stands in for the
 * network the native fetch rows reach.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { BEHAVIOURS } from './behaviours.ts';
import { nesting, streamed } from './catalogue.ts';
import type { Behaviour, DoorSpec, OpenDoor } from './door.ts';
import type { Outcome } from './outcome.ts';

/** The rows `door` runs: those whose needs it meets, and of those its picks when it has any. */
export function rowsOf(door: DoorSpec, rows: readonly Behaviour[] = BEHAVIOURS): Behaviour[] {
  return rows.filter(
    (row) =>
      !(row.needs ?? []).some((need) => need in door.lacks) &&
      (door.picks === undefined || door.picks.includes(row.name)),
  );
}

export function expectedOf(row: Behaviour, door: DoorSpec): Outcome {
  const expected = typeof row.expected === 'function' ? row.expected(door) : row.expected;
  return omit(expected, door);
}

export function omit(outcome: Outcome, door: DoorSpec): Outcome {
  const kept = { ...outcome };
  for (const field of Object.keys(door.omits ?? {}) as (keyof Outcome)[]) delete kept[field];
  return kept;
}

/** The reason a row waits for a change to land through this door, if it does. */
function pendingOf(row: Behaviour, door: DoorSpec): string | undefined {
  return (row.needs ?? []).map((need) => door.pending?.[need]).find((reason) => reason !== undefined);
}

export function matrix(door: DoorSpec, rows: readonly Behaviour[] = BEHAVIOURS): void {
  // A renamed row must not drop out of a door's picks unseen.
  const unknown = (door.picks ?? []).filter((name) => !rows.some((row) => row.name === name));
  if (unknown.length > 0) throw new Error(`${door.name} picks rows that do not exist: ${unknown.join(', ')}`);
  const selected = rowsOf(door, rows);
  let opened: OpenDoor | undefined;
  let loopback: Server | undefined;
  let origin = '';
  beforeAll(async () => {
    loopback = createServer((request, response) => response.end(`native ${request.method} ${request.url}`));
    loopback.listen(0, '127.0.0.1');
    await once(loopback, 'listening');
    origin = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}`;
    opened = await door.open(selected.filter((row) => pendingOf(row, door) === undefined).map(withLoopback));
  }, 120_000);
  afterAll(async () => {
    await opened?.close();
    loopback?.close();
  });

  const withLoopback = (row: Behaviour): Behaviour => ({
    ...row,
    body: row.body.replaceAll('__LOOPBACK__', origin),
  });
  const run = (row: Behaviour) => {
    if (!opened) throw new Error('the door opens in beforeAll');
    return opened.run(withLoopback(row));
  };

  for (const row of selected) {
    const pending = pendingOf(row, door);
    if (pending !== undefined) {
      test.skip(`${row.name} (pending: ${pending})`, () => {});
      continue;
    }
    test(row.name, async () => {
      streamed.reset();
      nesting.run = async (body) => {
        const nested = await run({ name: 'nested', providers: ['math'], body, expected: { logs: [] } });
        if (nested.error !== undefined) throw new Error(nested.error);
        return nested.result;
      };
      const outcome = omit(await run(row), door);
      const view = row.view ?? ((whole: Outcome) => whole);
      expect(view(outcome)).toStrictEqual(view(expectedOf(row, door)));
    }, 60_000);
  }
}
