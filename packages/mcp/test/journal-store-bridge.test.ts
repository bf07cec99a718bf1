/**
 * The journal store's bound and its folder's checks as a client on the current revision meets
 * them, through the real command over Streamable HTTP and the 2.x SDK's Client: pauses whose
 * states the store must keep fill it to `journalStoreBytes` and the next is the call's error
 * naming the bound and the setting; once the kept states expire their room is the next pause's;
 * and a folder opened to others or replaced by a link while the bridge serves is refused at the
 * next write, read and claim (the startup sentence on the bridge's stderr, a clear error to the
 * client), the bridge serving on, and used again once it is mended.
 */
import type { ChildProcess } from 'node:child_process';
import { chmodSync, readdirSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseConfig } from '../src/config.ts';
import {
  configKeyMessage,
  journalStoreExposedMessage,
  journalStoreNotFolderMessage,
  stateNotReadMessage,
  stateStoreFullMessage,
  stateStoreRefusedMessage,
} from '../src/texts.ts';
import {
  ACCEPT,
  type Answer,
  approvalClient,
  approvalConfig,
  call as callOn,
  httpBridge,
  KEYS,
  text,
} from './approval-client.ts';
import { removeScratch, startHttp, writeConfig } from './mcp-process.ts';
import { storeContents } from './store-contents.ts';

const TOKEN = 'the-bearer-token-of-the-journal-store-0123';
const APPROVAL_TIMEOUT = 4000;
/** Room for two states of a 1 MiB upstream answer (about 1.4 MB each), not three. */
const STORE_BYTES = 3 * 1024 * 1024;
/** A program whose state is past what a requestState holds: the store must keep it. */
const LARGE = `const big = await bad.huge({ mib: 1 }); await bad.echo({ value: 'big' }); return big.length;`;
/** A program whose state is handed out whole: the store only claims it. */
const SMALL = `await bad.echo({ value: 'small' }); return 'small';`;

let journal: string;
let bridge: ChildProcess;
let client: Client;
let stderr = '';

beforeAll(async () => {
  const config = writeConfig(
    approvalConfig({
      approvalTimeout: APPROVAL_TIMEOUT,
      journalStore: 'journal',
      journalStoreBytes: STORE_BYTES,
    }),
  );
  journal = join(config, '..', 'journal');
  const started = await startHttp(config, { CODEMODE_EXECUTOR_TOKEN: TOKEN, CODEMODE_DURABLE_KEYS: KEYS });
  bridge = started.process;
  bridge.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  client = approvalClient('journal-store-bridge', true);
  await client.connect(httpBridge(started.url, TOKEN));
}, 90_000);

afterAll(async () => {
  await client?.close().catch(() => {});
  bridge?.kill('SIGTERM');
  if (bridge && bridge.exitCode === null) await new Promise((resolve) => bridge.once('exit', resolve));
  removeScratch();
});

/** execute with `code`, or its retry with `state`, approving whichever call was asked about. */
function call(code: string, state?: string): Promise<Answer> {
  const responses = { 'approve-1': ACCEPT, 'approve-2': ACCEPT };
  return callOn(client, code, state === undefined ? undefined : { state, responses });
}

/** The state's length a refusal names. */
function lengthIn(answer: Answer): number {
  return Number(/its state \((\d+) characters/.exec(text(answer))?.[1]);
}

/** The journal store reference a requestState holds. */
function referenceIn(answer: Answer): string | undefined {
  return /\.r([A-Za-z0-9_-]{22})$/.exec(answer.requestState ?? '')?.[1];
}

test('journalStoreBytes below 1 MiB is refused by the config, naming the key', () => {
  expect(() =>
    parseConfig(
      JSON.stringify({ mcpServers: { a: { command: 'node' } }, journalStoreBytes: 1000 }),
      'mcp.json',
    ),
  ).toThrow(configKeyMessage('mcp.json', 'journalStoreBytes', 'Too small: expected number to be >=1048576.'));
});

describe('a store at its bound', () => {
  test('pauses fill it; the next is the call’s error naming the bound and the setting; expired states make room', async () => {
    const kept: Answer[] = [];
    let refused: Answer | undefined;
    for (let attempt = 0; attempt < 4 && refused === undefined; attempt++) {
      const answer = await call(LARGE);
      if (answer.resultType === 'input_required') kept.push(answer);
      else refused = answer;
    }
    expect(kept).toHaveLength(2);
    expect(refused?.isError).toBe(true);
    expect(text(refused as Answer)).toBe(stateStoreFullMessage(lengthIn(refused as Answer), STORE_BYTES));
    expect(text(refused as Answer)).not.toContain(journal);
    expect(storeContents(journal)).toMatchObject({ states: 2, reservations: 0 });
    expect(storeContents(journal).bytes).toBeLessThanOrEqual(STORE_BYTES);
    // A program whose state is handed out whole still pauses: only kept states count.
    expect((await call(SMALL)).resultType).toBe('input_required');
    // Once the kept states expire, their room is the next pause's: the earlier expired one goes,
    // as many as make room and no more.
    const earlier = kept.map((answer) => `state-${referenceIn(answer)}`);
    await sleep(APPROVAL_TIMEOUT + 1000);
    const after = await call(LARGE);
    expect(after.resultType).toBe('input_required');
    const states = readdirSync(journal).filter((name) => name.startsWith('state-'));
    expect(states.sort()).toEqual([earlier[1], `state-${referenceIn(after)}`].sort());
  }, 60_000);
});

describe('a store folder changed while the bridge serves', () => {
  test('opened to others: each write, read and claim refused, the bridge serving on, and used again once closed', async () => {
    const large = await call(LARGE);
    const small = await call(SMALL);
    expect([large.resultType, small.resultType]).toEqual(['input_required', 'input_required']);
    chmodSync(journal, 0o755);
    try {
      const pause = await call(LARGE);
      expect(text(pause)).toBe(stateStoreRefusedMessage(lengthIn(pause)));
      expect(text(await call(LARGE, large.requestState))).toBe(stateNotReadMessage(undefined));
      expect(text(await call(SMALL, small.requestState))).toMatch(
        /could not resume its program \(CLAIM_UNAVAILABLE: /,
      );
      expect(text(await call(`return 'still serving';`))).toBe('"still serving"');
      // The operator reads the startup sentence, once, on the bridge's stderr.
      expect(stderr.split(journalStoreExposedMessage(journal, 0o755))).toHaveLength(2);
    } finally {
      chmodSync(journal, 0o700);
    }
    // Neither refused resume spent its state.
    expect(text(await call(LARGE, large.requestState))).toBe(String(1024 * 1024));
    expect(text(await call(SMALL, small.requestState))).toBe('"small"');
  }, 60_000);

  test('replaced by a link to a folder of its own: refused, nothing kept through it, used again once put back', async () => {
    const moved = join(journal, '..', 'moved');
    renameSync(journal, moved);
    symlinkSync(moved, journal);
    const before = readdirSync(moved).sort();
    try {
      const pause = await call(LARGE);
      expect(text(pause)).toBe(stateStoreRefusedMessage(lengthIn(pause)));
      expect(stderr).toContain(journalStoreNotFolderMessage(journal));
      expect(readdirSync(moved).sort()).toEqual(before);
    } finally {
      unlinkSync(journal);
      renameSync(moved, journal);
    }
    // Put back, it claims again: a state handed out whole resumes once.
    const small = await call(SMALL);
    expect(text(await call(SMALL, small.requestState))).toBe('"small"');
    expect(text(await call(SMALL, small.requestState))).toMatch(
      /could not resume its program \(TOKEN_REPLAYED: /,
    );
  }, 60_000);
});
