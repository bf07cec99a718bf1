/**
 * A real pool child that writes hostile bytes to its channel (the channelAttackOnTool hook): the
 * parent reads them within its bounds, ends the child for the violation, and its execution comes
 * back as WORKER_LOST naming it, while an execution held in another child is answered as if
 * nothing happened and a replacement serves the next request.
 */
import {
  CLOSED_REASON_LIMIT,
  CONSOLE_CAPTURE_LIMIT,
  echo,
  REASON_ECHO_LIMIT,
  workerLostMessage,
} from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import { FILLED_ATTACHMENT_FIELD_MESSAGE, unexpectedAttachmentMessage } from '../../src/pool/attachment.ts';
import {
  CALL_FLOOD_CALLS,
  CALL_FOR,
  CALLS_AFTER_INVALID,
  CONSOLE_FLOOD_LINE,
  DEAF_FLOOD_CALLS,
  DEAF_FLOOD_TOOL,
  FETCH_FOR,
  HEARTBEAT_ATTACK_TEXT,
  HUGE_NAME,
} from '../../src/pool/child/channel-attacks.ts';
import { FRAME_LIMIT, frameTooLargeMessage, NOT_UTF8_MESSAGE } from '../../src/pool/frames.ts';
import { HOST_CALL_LIMIT, strayCallMessage, TOO_MANY_HOST_CALLS_MESSAGE } from '../../src/pool/serve.ts';
import { CONSOLE_PAST_BOUND_MESSAGE, CONSOLE_UNASKED_MESSAGE } from '../../src/pool/streamed-console.ts';
import { heartbeatFaultAfterHealthyMessage } from '../../src/pool/supervision.ts';
import { TOOLS_PROVIDER, Tools, usePool } from './helpers.ts';

const validation = (reason: string) => `it sent a message that failed validation: ${reason}`;

const attacks: [name: string, cause: RegExp][] = [
  ['oversized', exactly(validation(frameTooLargeMessage(FRAME_LIMIT + 1, FRAME_LIMIT)))],
  ['garbage', exactly(validation(frameTooLargeMessage(0x47455420, FRAME_LIMIT)))],
  ['not-utf8', exactly(validation(NOT_UTF8_MESSAGE))],
  ['not-a-message', exactly(validation('Unknown message type "nope"; expected one of '), /[^;]*/)],
  [
    'huge-type',
    exactly(validation(`Unknown message type "${echo('n'.repeat(HUGE_NAME))}"; expected one of `), /[^;]*/),
  ],
  [
    'huge-stray-fault',
    exactly(
      echo(`it reported a fault outside any conversation: ${'f'.repeat(HUGE_NAME)}`, REASON_ECHO_LIMIT),
    ),
  ],
  [
    'huge-binary-tag',
    exactly(
      validation('The message is not codec JSON: Unknown binary type '),
      new RegExp(`"b{64}"… \\(${HUGE_NAME} characters\\) in a \\$binary envelope\\.`),
    ),
  ],
  [
    'huge-closed-reason',
    exactly(
      validation(`Invalid handlesClosed message: message must be at most ${CLOSED_REASON_LIMIT} characters.`),
    ),
  ],
  // Calls as a run this child never had: the other child's (x0, held below) and a made-up one.
  [`${CALL_FOR}x0`, exactly(strayCallMessage({ type: 'dispatch', id: 'x0' } as never))],
  [`${FETCH_FOR}nobody`, exactly(strayCallMessage({ type: 'outbound', id: 'nobody' } as never))],
  ['attachment-on-prepared', exactly(validation(unexpectedAttachmentMessage('prepared')))],
  ['filled-attachment', exactly(validation(FILLED_ATTACHMENT_FIELD_MESSAGE))],
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

describe('a child that calls as a run whose close it already answered', () => {
  test('is ended: nothing it sends after the close can name that run', async () => {
    const { pool, log } = usePool({ size: 1, testHooks: { channelAttackOnTool: 'attack' } });
    await Promise.all([pool.engine(), log.next('healthy')]);
    const tools = new Tools();
    const granted = await pool.execute(
      {
        code: 'async () => ({ fetch: () => new Response("ok") })',
        retainHandles: true,
        providers: TOOLS_PROVIDER,
      },
      { dispatch: tools.dispatch },
    );
    await pool.closeHandles(granted.executionId as string);
    // The granting run was the pool's first, x0; this run sends a call as it after the close's ack.
    const attacked = await pool.execute(
      { code: `async () => tools.attack(${JSON.stringify(`${CALL_FOR}x0`)})`, providers: TOOLS_PROVIDER },
      { dispatch: tools.dispatch },
    );
    expect(attacked).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(attacked.error).toMatch(exactly(strayCallMessage({ type: 'dispatch', id: 'x0' } as never)));
    // Ended on the stray frame, read before the attack's own call: no tool was reached.
    expect(tools.calls).toStrictEqual([]);
  });
});

describe('a healthy child that answers a heartbeat with a fault', () => {
  test('is ended for breaking the protocol, not counted as a start failure, and the pool serves on', async () => {
    const { pool, log } = usePool({
      size: 1,
      heartbeatInterval: 50,
      testHooks: { channelAttackOnTool: 'attack' },
    });
    await Promise.all([pool.engine(), log.next('healthy')]);
    const [pid] = log.pids('spawned') as [number];
    const ended = log.next('terminating', (event) => event.pid === pid);
    const tools = new Tools();
    // The attack only changes how the child answers later heartbeats; its own run answers.
    const attacked = await pool.execute(
      {
        code: 'async () => { try { await tools.attack("fault-heartbeats") } catch {} return "ran" }',
        providers: TOOLS_PROVIDER,
      },
      { dispatch: tools.dispatch },
    );
    expect(attacked).toStrictEqual({ result: 'ran', logs: [] });
    expect((await ended).reason).toBe(heartbeatFaultAfterHealthyMessage(HEARTBEAT_ATTACK_TEXT));
    // Taken for a start failure, it would read unhealthy, and the pool's next refusal would carry its text.
    expect(log.events.filter((event) => event.type === 'unhealthy')).toStrictEqual([]);
    expect(await pool.execute({ code: 'async () => "served on"' })).toStrictEqual({
      result: 'served on',
      logs: [],
    });
    expect(log.pids('spawned')).toHaveLength(2);
  });
});

describe('a child that sends valid tool calls and never reads the answers', () => {
  test('is served only until its answers back up, then ended as silent', async () => {
    const { pool, log } = usePool({
      size: 1,
      heartbeatInterval: 100,
      heartbeatTimeout: 1000,
      testHooks: { channelAttackOnTool: 'attack' },
    });
    await Promise.all([pool.engine(), log.next('healthy')]);
    // Each answer is some 4 KB: unread, all of them would hold about 40 MB of this process.
    const answer = JSON.stringify({ result: 'x'.repeat(4096) });
    let served = 0;
    const outcome = await pool.execute(
      { code: 'async () => tools.attack("deaf-flood")', providers: TOOLS_PROVIDER },
      {
        dispatch: async (_provider, tool) => {
          if (tool === DEAF_FLOOD_TOOL) served++;
          return answer;
        },
      },
    );
    expect(outcome).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(outcome.error).toMatch(/it stopped answering its heartbeat for \d+ ms/);
    // The parent stopped reading it once its answers backed up: most of the calls were never taken.
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(DEAF_FLOOD_CALLS / 2);
    expect(await pool.execute({ code: 'async () => "served on"' })).toStrictEqual({
      result: 'served on',
      logs: [],
    });
  });
});

describe('a child that sends more tool calls at once than its sandbox allows', () => {
  test("is ended once past the bound; the caller's function ran only up to it", async () => {
    const { pool, log } = usePool({ size: 1, testHooks: { channelAttackOnTool: 'attack' } });
    await Promise.all([pool.engine(), log.next('healthy')]);
    let served = 0;
    const outcome = await pool.execute(
      { code: 'async () => tools.attack("call-flood")', providers: TOOLS_PROVIDER },
      {
        // A tool that never answers: every call it takes stays in flight.
        dispatch: (_provider, tool) => {
          if (tool === DEAF_FLOOD_TOOL) served++;
          return new Promise<string>(() => {});
        },
      },
    );
    expect(CALL_FLOOD_CALLS).toBeGreaterThan(HOST_CALL_LIMIT);
    expect(outcome).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(outcome.error).toMatch(
      new RegExp(`^${literal(workerLostMessage(TOO_MANY_HOST_CALLS_MESSAGE).slice(0, -1))}; the pool `),
    );
    expect(served).toBe(HOST_CALL_LIMIT);
    expect(await pool.execute({ code: 'async () => "served on"' })).toStrictEqual({
      result: 'served on',
      logs: [],
    });
  });
});

describe('a child that sends valid tool calls right after an invalid message', () => {
  test('is ended for the invalid one, and none of the calls after it reaches the caller', async () => {
    const { pool, log } = usePool({ size: 1, testHooks: { channelAttackOnTool: 'attack' } });
    await Promise.all([pool.engine(), log.next('healthy')]);
    let served = 0;
    const outcome = await pool.execute(
      { code: 'async () => tools.attack("invalid-then-calls")', providers: TOOLS_PROVIDER },
      {
        dispatch: async (_provider, tool) => {
          if (tool === DEAF_FLOOD_TOOL) served++;
          return '{"result":1}';
        },
      },
    );
    expect(CALLS_AFTER_INVALID).toBeGreaterThan(0);
    expect(outcome).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(outcome.error).toMatch(
      exactly(validation('Unknown message type "nope"; expected one of '), /[^;]*/),
    );
    expect(served).toBe(0);
    expect(await pool.execute({ code: 'async () => "served on"' })).toStrictEqual({
      result: 'served on',
      logs: [],
    });
  });
});

describe('a child that streams console lines its sandbox would not', () => {
  test.each([
    ['past the capture bound, to a caller that asked', true, CONSOLE_PAST_BOUND_MESSAGE],
    ['to a caller that did not ask', false, CONSOLE_UNASKED_MESSAGE],
  ])('%s: is ended, and the callback heard no more than the bound', async (_, asked, reason) => {
    const { pool, log } = usePool({ size: 1, testHooks: { channelAttackOnTool: 'attack' } });
    await Promise.all([pool.engine(), log.next('healthy')]);
    let heard = 0;
    const outcome = await pool.execute(
      { code: 'async () => tools.attack("console-flood")', providers: TOOLS_PROVIDER },
      {
        dispatch: async () => '{"result":1}',
        ...(asked
          ? {
              onConsole: (lines: readonly unknown[]) => {
                heard += lines.length;
              },
            }
          : {}),
      },
    );
    expect(outcome).toMatchObject({ result: undefined, code: 'WORKER_LOST', logs: [] });
    expect(outcome.error).toMatch(
      new RegExp(`^${literal(workerLostMessage(reason).slice(0, -1))}; the pool `),
    );
    expect(heard * CONSOLE_FLOOD_LINE).toBeLessThanOrEqual(CONSOLE_CAPTURE_LIMIT);
    expect(await pool.execute({ code: 'async () => "served on"' })).toStrictEqual({
      result: 'served on',
      logs: [],
    });
  });
});
