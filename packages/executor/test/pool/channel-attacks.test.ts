/**
 * A real pool child that writes hostile bytes to its channel (the channelAttackOnTool hook): the
 * parent reads them within its bounds, ends the child for the violation, and its execution comes
 * back as WORKER_LOST naming it, while an execution held in another child is answered as if
 * nothing happened and a replacement serves the next request.
 */
import { workerLostMessage } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { FRAME_LIMIT, frameTooLargeMessage, NOT_UTF8_MESSAGE } from '../../src/pool/frames.ts';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

const validation = (reason: string) => `it sent a message that failed validation: ${reason}`;

const attacks: [name: string, cause: RegExp][] = [
  ['oversized', exactly(validation(frameTooLargeMessage(FRAME_LIMIT + 1, FRAME_LIMIT)))],
  ['garbage', exactly(validation(frameTooLargeMessage(0x47455420, FRAME_LIMIT)))],
  ['not-utf8', exactly(validation(NOT_UTF8_MESSAGE))],
  ['not-a-message', exactly(validation('Unknown message type "nope"; expected one of '), /[^;]*/)],
  ['trickle', exactly(validation('The message is not codec JSON: '), /.*/)],
  // The process ends itself inside a frame: its exit, not the cut frame, is what the caller meets.
  ['truncated', new RegExp(`^${literal(workerLostMessage('its process exited with code 1'))}$`)],
];

/** A pattern for `text` verbatim, then whatever `rest` matches, then how the pool ended the child. */
function exactly(text: string, rest = /(?:)/): RegExp {
  const quoted = literal(workerLostMessage(text).slice(0, -1));
  return new RegExp(`^${quoted}${rest.source}; the pool (sent SIGTERM|ended it with SIGTERM).*\\.$`);
}

/** `text` as a pattern matching exactly it. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('a child that writes hostile bytes to its channel', () => {
  test.each(attacks)(
    '%s: is ended, its execution is lost, the other child serves on',
    async (attack, cause) => {
      const { pool, log } = usePool({ size: 2, testHooks: { channelAttackOnTool: 'attack' } });
      await Promise.all([pool.engine(), log.next('healthy'), log.next('healthy')]);
      const tools = new Tools();
      const held = pool.execute(
        { code: 'async () => tools.gate("held")', providers: TOOLS_PROVIDER },
        { dispatch: tools.dispatch },
      );
      await tools.arrived('held');
      const attacked = await pool.execute(
        { code: `async () => tools.attack(${JSON.stringify(attack)})`, providers: TOOLS_PROVIDER },
        { dispatch: tools.dispatch },
      );
      expect(attacked).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
      expect(attacked.error).toMatch(cause);
      tools.open('held', 'answered');
      expect(await held).toStrictEqual({ result: 'answered', logs: [] });
      expect(await pool.execute({ code: 'async () => "served on"' })).toStrictEqual({
        result: 'served on',
        logs: [],
      });
    },
  );
});
