/**
 * An attacker's review of the approval rounds (issue 30) as tests against the real command: a
 * hostile client (answers for questions never asked, an accept replayed into another round,
 * thousands of answers, `__proto__` keys, deeply nested arguments, a state raced across two bridges,
 * another bearer token), a hostile program (a question it tries to make lie), and whoever can
 * write the journal store (a reference planted as a link). docs/threat-model.md says what holds.
 * approval-rounds.test.ts covers the rounds working, and forged, cut, expired and foreign states.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { QUESTION_LIMIT } from '../src/approval-question.ts';
import {
  badRequestStateMessage,
  executeArgumentsMessage,
  questionTooLongMessage,
  STATE_NOT_STORED_REASON,
  stateNotKeptMessage,
  unansweredMessage,
} from '../src/texts.ts';
import {
  ACCEPT,
  type Answer,
  approvalClient,
  approvalConfig,
  call,
  httpBridge,
  KEYS,
  stdioBridge,
  text,
} from './approval-client.ts';
import { BIN, misbehaving, removeScratch, scratch, startHttp, writeConfig } from './mcp-process.ts';

const TOKEN_A = 'the-bearer-token-of-client-a-0123456789';
const TOKEN_B = 'the-bearer-token-of-client-b-0123456789';

/** Every character the question must never show raw (the executor's safe-text.ts). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose
const UNSAFE = /[\0-\t\v-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

let files: string;
let journal: string;
let manual: Client;
/** Two bridges sharing one key ring and one journal store, each with its own bearer token. */
let bridgeA: ChildProcess;
let bridgeB: ChildProcess;
let clientA: Client;
let clientB: Client;
let urlA: string;

async function httpClient(url: string, token: string): Promise<Client> {
  const client = approvalClient('approval-attacks-http', true);
  await client.connect(httpBridge(url, token));
  return client;
}

beforeAll(async () => {
  files = scratch();
  const config = writeConfig(approvalConfig({ approvalTimeout: 60_000, journalStore: 'journal' }));
  journal = join(config, '..', 'journal');
  manual = approvalClient('approval-attacks', true);
  const [a, b] = await Promise.all([
    startHttp(config, { CODEMODE_EXECUTOR_TOKEN: TOKEN_A, CODEMODE_DURABLE_KEYS: KEYS }),
    startHttp(config, { CODEMODE_EXECUTOR_TOKEN: TOKEN_B, CODEMODE_DURABLE_KEYS: KEYS }),
    manual.connect(stdioBridge(config)),
  ]);
  bridgeA = a.process;
  bridgeB = b.process;
  urlA = a.url;
  [clientA, clientB] = await Promise.all([httpClient(a.url, TOKEN_A), httpClient(b.url, TOKEN_B)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([manual, clientA, clientB].map((client) => client?.close().catch(() => {})));
  for (const bridge of [bridgeA, bridgeB]) {
    bridge?.kill('SIGTERM');
    if (bridge && bridge.exitCode === null) await new Promise((resolve) => bridge.once('exit', resolve));
  }
  removeScratch();
});

const touch = (path: string) => `await bad.touch({ path: ${JSON.stringify(path)} });`;

describe('a hostile client', () => {
  test('an accept for a question never asked approves nothing: the later call is asked for itself', async () => {
    const path = join(files, 'never-asked');
    const code = `await bad.echo({ value: 'harmless' }); ${touch(path)} return 'made';`;
    const first = await call(manual, code);
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['approve-1']);
    const responses = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [`approve-${index + 1}`, ACCEPT]),
    );
    const second = await call(manual, code, { state: first.requestState as string, responses });
    expect(second.resultType).toBe('input_required');
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['approve-2']);
    expect(second.inputRequests?.['approve-2']?.params.message).toContain(JSON.stringify(path));
    expect(existsSync(path)).toBe(false);
  });

  test("one round's accept replayed into the next round answers nothing there", async () => {
    const path = join(files, 'replayed-accept');
    const code = `await bad.echo({ value: 'harmless' }); try { ${touch(path)} } catch (error) { return error.message; } return 'made';`;
    const first = await call(manual, code);
    const responses = { 'approve-1': ACCEPT };
    const second = await call(manual, code, { state: first.requestState as string, responses });
    expect(Object.keys(second.inputRequests ?? {})).toEqual(['approve-2']);
    const third = await call(manual, code, { state: second.requestState as string, responses });
    expect(JSON.parse(text(third))).toBe(unansweredMessage('bad.touch', 'the retry carried no answer to it'));
    expect(existsSync(path)).toBe(false);
  });

  test('ten thousand answers, and answers hidden under __proto__, are read as plain data', async () => {
    const path = join(files, 'proto');
    const code = `try { ${touch(path)} } catch (error) { return error.message; } return 'made';`;
    const many: Record<string, unknown> = {};
    for (let index = 2; index < 10_002; index++) many[`approve-${index}`] = ACCEPT;
    // The client's JSON holds an own "__proto__" key; no step may turn it into a prototype.
    const hidden = JSON.parse(`{ "__proto__": { "approve-1": ${JSON.stringify(ACCEPT)} } }`);
    // Each its own state: this bridge claims a state once (it has a journal store).
    const answers = await Promise.all(
      [many, hidden].map(async (responses) => {
        const first = await call(manual, code);
        return call(manual, code, { state: first.requestState as string, responses });
      }),
    );
    expect(answers.map((answer) => JSON.parse(text(answer)))).toEqual([
      unansweredMessage('bad.touch', 'the retry carried no answer to it'),
      unansweredMessage('bad.touch', 'the retry carried no answer to it'),
    ]);
    expect(existsSync(path)).toBe(false);
  });

  test('a state raced to two bridges sharing a store resumes its run once', async () => {
    const path = join(files, 'raced');
    const code = `${touch(path)} return 'made';`;
    const first = await call(clientA, code);
    const retry = { state: first.requestState as string, responses: { 'approve-1': ACCEPT } };
    const second = await httpClient(urlA, TOKEN_A);
    try {
      const answers = await Promise.all([
        call(clientA, code, retry),
        call(second, code, retry),
        call(clientA, code, retry),
        call(second, code, retry),
      ]);
      const texts = answers.map(text);
      expect(texts.filter((answer) => answer === '"made"')).toHaveLength(1);
      expect(texts.filter((answer) => /\(TOKEN_REPLAYED: /.test(answer))).toHaveLength(3);
    } finally {
      await second.close();
    }
  });

  test("another bearer token is another client: A's state is refused by B, whose key is the same", async () => {
    const path = join(files, 'other-token');
    const code = `${touch(path)} return 'made';`;
    const first = await call(clientA, code);
    const answer = await call(clientB, code, {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(text(answer)).toMatch(/could not resume its program \(TOKEN_MISMATCH: /);
    expect(existsSync(path)).toBe(false);
    // A's own retry still resumes: B's refusal did not spend the token.
    const done = await call(clientA, code, {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(text(done)).toBe('"made"');
  });

  test('a token the bridge does not hold is refused at the door, before any state is read', async () => {
    const response = await fetch(urlA, {
      method: 'POST',
      headers: { authorization: 'Bearer not-the-token', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
  });

  test('arguments beside the code are refused outright: no run starts, so no state is made for them', async () => {
    const path = join(files, 'extra-argument');
    const code = `${touch(path)} return 'made';`;
    const answer = await call(manual, code, undefined, { note: 'one' });
    expect(text(answer)).toBe(executeArgumentsMessage(['note']));
    expect(answer.requestState).toBeUndefined();
    expect(existsSync(path)).toBe(false);
  });
});

describe('a hostile program', () => {
  test('the question shows every argument escaped, a __proto__ key among them, whatever the program wrote', async () => {
    const code = `await bad.echo({ value: 'a\\n  "path": "/safe"\\u202e\\u200b\\u001b[2J\\u0000', ['__proto__']: { path: '/etc/shadow' } });`;
    const first = await call(manual, code);
    const message = first.inputRequests?.['approve-1']?.params.message as string;
    expect(message).not.toMatch(UNSAFE);
    expect(message).toContain('"value": "a\\n  \\"path\\": \\"/safe\\"\\u202e\\u200b\\u001b[2J\\u0000"');
    expect(message).toContain('"__proto__": {"path":"/etc/shadow"}');
    expect(message.split('\n').filter((line) => line.startsWith('  '))).toHaveLength(2);
  });

  test('a question past QUESTION_LIMIT is never asked cut: the call is refused and nothing pauses', async () => {
    const code = `try { await bad.echo({ value: 'v'.repeat(${QUESTION_LIMIT}) }); } catch (error) { return error.message; }`;
    const answer = await call(manual, code);
    expect(answer.resultType).toBeUndefined();
    const length = Number(/would be (\d+) characters/.exec(text(answer))?.[1]);
    expect(JSON.parse(text(answer))).toBe(questionTooLongMessage('bad.echo', length, QUESTION_LIMIT));
  });
});

describe('whoever can write the journal store', () => {
  test('a reference planted as a link to a kept state is not read, nor a path in its place', async () => {
    const code = `const big = await bad.huge({ mib: 1 }); await bad.echo({ value: 'big' }); return big.length;`;
    const first = await call(clientA, code);
    const reference = /\.r([A-Za-z0-9_-]{22})$/.exec(first.requestState as string)?.[1] as string;
    expect(readdirSync(journal)).toContain(`state-${reference}`);
    const planted = 'P'.repeat(22);
    symlinkSync(join(journal, `state-${reference}`), join(journal, `state-${planted}`));
    const retry = (state: string) => call(clientA, code, { state, responses: { 'approve-2': ACCEPT } });
    const answers = await Promise.all([
      retry(`cma1.2a.r${planted}`),
      retry(`cma1.2a.r../../../etc/passwd`),
      retry(`cma1.2a.r/etc/passwd`),
    ]);
    expect(text(answers[0] as Answer)).toBe(badRequestStateMessage(STATE_NOT_STORED_REASON));
    for (const answer of answers.slice(1))
      expect(text(answer)).toBe(badRequestStateMessage('it is cut short'));
    const done = await retry(first.requestState as string);
    expect(JSON.parse(text(done))).toBe(1024 * 1024);
  });
});

test('a program that asks round after round keeps one state in the store, not one per round', async () => {
  const code = `const big = await bad.huge({ mib: 1 });
    for (let round = 0; round < 5; round++) {
      try { await bad.echo({ value: 'round ' + round }); } catch {}
    }
    return big.length;`;
  const references: string[] = [];
  let answer = await call(clientA, code);
  while (answer.resultType === 'input_required') {
    const reference = /\.r([A-Za-z0-9_-]{22})$/.exec(answer.requestState as string)?.[1] as string;
    references.push(reference);
    // Every earlier round's state is gone from the store once the next one paused.
    const kept = readdirSync(journal).filter((name) => references.includes(name.slice('state-'.length)));
    expect(kept).toEqual([`state-${reference}`]);
    const [key] = Object.keys(answer.inputRequests ?? {});
    const responses = { [key as string]: { action: 'decline' } };
    answer = await call(clientA, code, { state: answer.requestState as string, responses });
  }
  expect(references).toHaveLength(5);
  expect(JSON.parse(text(answer))).toBe(1024 * 1024);
});

/** The bridge over stdio with raw JSON lines, for what the SDK's client would not send. */
function rawStdio(config: string): {
  send(line: string): void;
  next(): Promise<unknown>;
  stop(): Promise<void>;
} {
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', config], {
    env: { ...process.env, CODEMODE_DURABLE_KEYS: KEYS },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  let buffer = '';
  const waiting: ((value: unknown) => void)[] = [];
  const lines: unknown[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      const resolve = waiting.shift();
      if (resolve) resolve(message);
      else lines.push(message);
    }
  });
  return {
    send: (line) => child.stdin?.write(`${line}\n`),
    next: () =>
      lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve)),
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

test('arguments nested a million deep beside the code are refused as a call, and the bridge goes on', async () => {
  const config = writeConfig({ mcpServers: { bad: misbehaving() }, approvals: { 'bad.echo': 'ask' } });
  const bridge = rawStdio(config);
  try {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    };
    const request = (id: number, args: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"execute","arguments":${args},"_meta":${JSON.stringify(meta)}}}`;
    const depth = 1_000_000;
    const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    bridge.send(request(1, `{"code":"return 1","deep":${deep}}`));
    const refused = (await bridge.next()) as { id: number; result?: { isError?: boolean }; error?: unknown };
    expect(refused.id).toBe(1);
    expect(refused.error ?? refused.result?.isError).toBeTruthy();
    bridge.send(request(2, `{"code":"return await bad.echo({ value: 'after' })"}`));
    const asked = (await bridge.next()) as { id: number; result?: { resultType?: string } };
    expect([asked.id, asked.result?.resultType]).toEqual([2, 'input_required']);
  } finally {
    await bridge.stop();
  }
}, 60_000);

/**
 * A journal store on a tmpfs of its own, so that it can be filled and made read-only: root only,
 * where mount is allowed; elsewhere the tests below are skipped.
 */
function smallFilesystem(
  bytes: number,
): { folder: string; remountReadOnly(): void; remove(): void } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const mountPoint = scratch();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', mountPoint], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return {
    folder: join(mountPoint, 'journal'),
    remountReadOnly: () => execFileSync('mount', ['-o', 'remount,ro', mountPoint], { stdio: 'ignore' }),
    remove: () => execFileSync('umount', [mountPoint], { stdio: 'ignore' }),
  };
}

const filesystem = smallFilesystem(256 * 1024);

describe.skipIf(filesystem === undefined)('a journal store that is full, then read-only', () => {
  let bridge: ChildProcess | undefined;
  let client: Client;
  afterAll(async () => {
    await client?.close().catch(() => {});
    bridge?.kill('SIGTERM');
    if (bridge && bridge.exitCode === null) await new Promise((resolve) => bridge?.once('exit', resolve));
    filesystem?.remove();
  });

  test('a state the full store cannot keep, and a claim the read-only store cannot make, are the call’s error', async () => {
    const fs = filesystem as NonNullable<typeof filesystem>;
    const config = writeConfig(approvalConfig({ journalStore: fs.folder }));
    const started = await startHttp(config, {
      CODEMODE_EXECUTOR_TOKEN: TOKEN_A,
      CODEMODE_DURABLE_KEYS: KEYS,
    });
    bridge = started.process;
    client = await httpClient(started.url, TOKEN_A);
    // 1 MiB of upstream result in the journal: the state must be kept, and 256 KiB cannot hold it.
    const full = await call(
      client,
      `const big = await bad.huge({ mib: 1 }); await bad.echo({ value: 'big' });`,
    );
    expect(full.isError).toBe(true);
    const length = Number(/its state \((\d+) characters/.exec(text(full))?.[1]);
    expect(length).toBeGreaterThan(1024 * 1024);
    expect(text(full)).toBe(stateNotKeptMessage(length, 'ENOSPC'));
    expect(text(full)).not.toContain(fs.folder);
    // Read-only: the claim of a small state cannot be made, so the run is not resumed.
    const path = join(files, 'read-only');
    const code = `${touch(path)} return 'made';`;
    const first = await call(client, code);
    fs.remountReadOnly();
    const answer = await call(client, code, {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(text(answer)).toMatch(/could not resume its program \(CLAIM_UNAVAILABLE: /);
    expect(existsSync(path)).toBe(false);
    expect(text(await call(client, `return 'still serving';`))).toBe('"still serving"');
  });
});
