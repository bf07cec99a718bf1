/**
 * What a journal store's folder holds, read as the tests of its bound read it: the bytes its
 * states take, how many there are, and whether a reservation (a write under way or abandoned)
 * was left behind.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function storeContents(folder: string): { bytes: number; states: number; reservations: number } {
  const names = readdirSync(folder);
  const states = names.filter((name) => name.startsWith('state-'));
  return {
    bytes: states.reduce((sum, name) => sum + statSync(join(folder, name)).size, 0),
    states: states.length,
    reservations: names.filter((name) => name.endsWith('.tmp')).length,
  };
}
