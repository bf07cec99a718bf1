/**
 * What the parent allows a child to stream of a run's console (docs/pool.md, "The live console"):
 * its sandbox streams only the lines it captured, within CONSOLE_CAPTURE_LIMIT of cost plus the
 * closing warning, and only when the execute message asked. A child past either is not running
 * the sandbox, and is ended as a protocol violation before a caller's callback hears the excess.
 */
import { CONSOLE_CAPTURE_LIMIT, LINE_COST, type LogLine } from '@supolka/codemode-protocol/wire';
import { CONSOLE_CAPTURE_MESSAGE } from '../sandbox/console.ts';

/** The capture bound, and the warning line the capture adds once it passes. */
export const STREAMED_CONSOLE_LIMIT =
  CONSOLE_CAPTURE_LIMIT + LINE_COST + JSON.stringify(CONSOLE_CAPTURE_MESSAGE).length;

export const CONSOLE_UNASKED_MESSAGE = 'it sent console lines of a run that did not ask for them';

export const CONSOLE_PAST_BOUND_MESSAGE = `it sent more console output than the ${CONSOLE_CAPTURE_LIMIT}-byte console capture holds`;

/** The lines' cost as the sandbox's capture charges it: LINE_COST plus each text's escaped length. */
export function consoleCost(lines: readonly LogLine[]): number {
  let cost = 0;
  for (const line of lines) cost += LINE_COST + JSON.stringify(line.text).length;
  return cost;
}
