/**
 * Approvals of clients on the current revision (2026-07-28) through the real command: an `ask`
 * answers execute with an InputRequiredResult and a requestState, and the retry resumes the
 * program. The 2.x SDK's Client over stdio fulfils the rounds itself (its elicitation handler
 * answers by the value the call carries); a Client in manual mode (allowInputRequired) plays the
 * client that sends the state back as it likes: replayed, from another client or another call,
 * bit-flipped, cut, 2 MiB, expired. Over Streamable HTTP (both kinds of client) a bridge with a
 * journal store keeps a state too large to hand out and claims each one once, so a replay there
 * is refused. Every bridge
 * holds the same durable key, so a state moved between them is refused for what it is bound to,
 * not for the key. The handshake era's live questions are approvals.test.ts's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REQUEST_STATE_LIMIT } from '../src/request-state.ts';
import {
  approvalQuestion,
  badRequestStateMessage,
  declinedMessage,
  OUTCOME_UNKNOWN_MESSAGE,
  stateTooLargeMessage,
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
import { BIN, misbehaving, removeScratch, scratch, startHttp, stopHttp, writeConfig } from './mcp-process.ts';

const TOKEN = 'a-token-for-the-approval-rounds-0123';
const APPROVAL_TIMEOUT = 4000;

let files: string;
let stdioConfig: string;
/** Fulfils its rounds itself, answering each question by the value in it. */
let auto: Client;
/** Manual mode: every input_required answer comes back to the test. */
let manual: Client;
/** Manual mode too, on a bridge of its own: another client. */
let other: Client;
/** Manual mode over HTTP, to a bridge with a journal store. */
let overHttp: Client;
let httpCommand: ChildProcess | undefined;
let httpUrl: string;
const asked: string[] = [];

function stdioClient(manualMode: boolean): Promise<Client> {
  const client = approvalClient('approval-rounds', manualMode);
  return client.connect(stdioBridge(stdioConfig)).then(() => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    return client;
  });
}

beforeAll(async () => {
  files = scratch();
  const common = approvalConfig({ approvalTimeout: APPROVAL_TIMEOUT });
  stdioConfig = writeConfig(common);
  const httpConfig = writeConfig({ ...common, journalStore: 'journal' });
  const http = startHttp(httpConfig, { CODEMODE_EXECUTOR_TOKEN: TOKEN, CODEMODE_DURABLE_KEYS: KEYS }).then(
    async ({ process: child, url }) => {
      httpCommand = child;
      httpUrl = url;
      const client = approvalClient('approval-rounds-http', true);
      await client.connect(httpBridge(url, TOKEN));
      return client;
    },
  );
  [auto, manual, other, overHttp] = await Promise.all([
    stdioClient(false),
    stdioClient(true),
    stdioClient(true),
    http,
  ]);
  auto.setRequestHandler('elicitation/create', async (request) => {
    const message = (request.params as { message: string }).message;
    asked.push(message);
    if (message.includes('decline')) return { action: 'decline' };
    if (message.includes('dismiss')) return { action: 'cancel' };
    return { action: 'accept', content: {} };
  });
}, 90_000);

afterAll(async () => {
  await Promise.all([auto, manual, other, overHttp].map((client) => client?.close().catch(() => {})));
  await stopHttp(httpCommand);
  removeScratch();
});

/** execute on the client that fulfils its rounds: the final answer, as a model's client sees it. */
async function fulfilled(code: string): Promise<Answer> {
  return (await auto.callTool({ name: 'execute', arguments: { code } }, { timeout: 60_000 })) as Answer;
}

const echo = (value: string) => `return await bad.echo({ value: '${value}' });`;
const caught = (body: string) => `try { ${body} } catch (error) { return error.message; }`;

describe('a client that fulfils the rounds itself', () => {
  test('an approved call is made once the user accepts, and the question is the live one', async () => {
    asked.length = 0;
    const answer = await fulfilled(echo('approve'));
    expect(answer.isError, text(answer)).toBeUndefined();
    expect(answer.structuredContent).toEqual({ value: 'approve' });
    expect(asked).toEqual([approvalQuestion('"bad"', '"echo"', [], ['  "value": "approve"'])]);
  });

  test("a declined call throws the live path's sentence in the program, which goes on", async () => {
    const answer = await fulfilled(`${caught(echo('decline'))}`);
    expect(JSON.parse(text(answer))).toBe(declinedMessage('bad.echo'));
  });

  test('a dismissed question throws the not-approved sentence', async () => {
    const answer = await fulfilled(`${caught(echo('dismiss'))}`);
    expect(JSON.parse(text(answer))).toBe(unansweredMessage('bad.echo', 'the question was dismissed'));
  });

  test('asks after a resume pause again, and asks made together are asked in one round', async () => {
    asked.length = 0;
    const answer = await fulfilled(
      `const one = await bad.echo({ value: 'first' });
       const [two, three] = await Promise.all([bad.echo({ value: 'second' }), bad.echo({ value: 'third' })]);
       const four = await bad.echo({ value: 'fourth' });
       return [one.value, two.value, three.value, four.value];`,
    );
    expect(answer.isError, text(answer)).toBeUndefined();
    expect(answer.structuredContent ?? JSON.parse(text(answer))).toEqual([
      'first',
      'second',
      'third',
      'fourth',
    ]);
    expect(asked.map((question) => /"value": "(\w+)"/.exec(question)?.[1])).toEqual([
      'first',
      'second',
      'third',
      'fourth',
    ]);
  });
});

test('a program that makes hundreds of calls before it asks still pauses and resumes', async () => {
  // Past the executor's default journal of 256 entries, well within maxUpstreamCalls.
  const answer = await fulfilled(
    `for (let i = 0; i < 300; i++) await bad.held({}); return (await bad.echo({ value: 'after 300' })).value;`,
  );
  expect(answer.isError, text(answer)).toBeUndefined();
  expect(JSON.parse(text(answer))).toBe('after 300');
});

describe('the state a client sends back', () => {
  test('the first answer is an InputRequiredResult: an elicitation per question and the state', async () => {
    const first = await call(manual, echo('x'));
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests ?? {})).toEqual(['approve-1']);
    const request = first.inputRequests?.['approve-1'];
    expect([request?.method, request?.params.mode, request?.params.message]).toEqual([
      'elicitation/create',
      'form',
      approvalQuestion('"bad"', '"echo"', [], ['  "value": "x"']),
    ]);
    expect(first.requestState).toMatch(/^cma1\.1a\.t/);
  });

  test('a retry without an answer is not approved', async () => {
    const first = await call(manual, caught(echo('x')));
    const answer = await call(manual, caught(echo('x')), { state: first.requestState as string });
    expect(JSON.parse(text(answer))).toBe(unansweredMessage('bad.echo', 'the retry carried no answer to it'));
  });

  test('replayed without a claim store, the resume runs again: the accepted call is made again', async () => {
    const path = join(files, 'replayed');
    const code = `await bad.touch({ path: ${JSON.stringify(path)} }); return 'made';`;
    const first = await call(manual, code);
    const retry = { state: first.requestState as string, responses: { 'approve-1': ACCEPT } };
    expect(text(await call(manual, code, retry))).toBe('"made"');
    rmSync(path);
    // At least once: the same state resumes until it expires (docs/mcp.md, "Approvals").
    expect(text(await call(manual, code, retry))).toBe('"made"');
    expect(existsSync(path)).toBe(true);
  });

  test("another client's state is refused, and nothing runs", async () => {
    const path = join(files, 'foreign');
    const code = `await bad.touch({ path: ${JSON.stringify(path)} }); return 'made';`;
    const first = await call(manual, code);
    const answer = await call(other, code, {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(
      /^The approval answered with this execute call could not resume its program \(TOKEN_MISMATCH: /,
    );
    expect(existsSync(path)).toBe(false);
  });

  test("another call's state is refused, and nothing runs", async () => {
    const path = join(files, 'another-call');
    const first = await call(manual, echo('asked'));
    const code = `await bad.touch({ path: ${JSON.stringify(path)} }); return 'made';`;
    const answer = await call(manual, code, {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/could not resume its program \(TOKEN_MISMATCH: /);
    expect(existsSync(path)).toBe(false);
  });

  test('a flipped bit, a cut state, a foreign text and 2 MiB are refused with a sentence', async () => {
    const first = await call(manual, echo('tampered'));
    const state = first.requestState as string;
    const retry = (changed: string) =>
      call(manual, echo('tampered'), { state: changed, responses: { 'approve-1': ACCEPT } });
    // One bit of the ciphertext: a base64url character near the end, before the tag's last one,
    // changed to the character whose value differs from it in the lowest bit.
    const at = state.length - 30;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const flippedChar = alphabet[alphabet.indexOf(state[at] as string) ^ 1] as string;
    const flipped = `${state.slice(0, at)}${flippedChar}${state.slice(at + 1)}`;
    const middle = Math.floor(state.length / 2);
    const answers = await Promise.all([
      retry(flipped),
      retry(state.slice(0, middle)),
      retry('not a state'),
      retry(`cma1.1a.t${'A'.repeat(2 * 1024 * 1024)}`),
    ]);
    for (const answer of answers) expect(answer.isError).toBe(true);
    expect(text(answers[0] as Answer)).toMatch(/could not resume its program \(TOKEN_FORGED: /);
    expect(text(answers[1] as Answer)).toMatch(/could not resume its program \(TOKEN_MALFORMED: /);
    expect(text(answers[2] as Answer)).toBe(badRequestStateMessage('it is not one this bridge made'));
    expect(text(answers[3] as Answer)).toBe(
      badRequestStateMessage(`it is longer than ${REQUEST_STATE_LIMIT} characters`),
    );
  });

  test("a state's list of pending calls changed can only lose calls, never make one", async () => {
    const path = join(files, 'listed');
    const code = caught(`await bad.touch({ path: ${JSON.stringify(path)} }); return 'made';`);
    const first = await call(manual, code);
    const state = first.requestState as string;
    const answerWith = (changed: string, key: string) =>
      call(manual, code, { state: changed, responses: { [key]: ACCEPT } });
    // Another sequence than the token's pending call: the executor refuses the answers.
    const another = await answerWith(state.replace(/^cma1\.1a\./, 'cma1.2a.'), 'approve-2');
    expect(another.isError).toBe(true);
    expect(text(another)).toMatch(/\[BAD_REQUEST\]$/);
    // Marked not asked: the call gets the unknown-outcome error, as if declined, and is not made.
    const unasked = await answerWith(state.replace(/^cma1\.1a\./, 'cma1.1u.'), 'approve-1');
    expect(JSON.parse(text(unasked))).toBe(OUTCOME_UNKNOWN_MESSAGE);
    expect(existsSync(path)).toBe(false);
  });

  test('a state past approvalTimeout has expired: nothing runs, and the sentence says to ask again', async () => {
    const path = join(files, 'expired');
    const code = `await bad.touch({ path: ${JSON.stringify(path)} }); return 'made';`;
    const first = await call(manual, code);
    await new Promise((resolve) => setTimeout(resolve, APPROVAL_TIMEOUT + 500));
    const answer = await call(manual, code, {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(
      /could not resume its program \(TOKEN_EXPIRED: .*\); nothing was run\. The question waited longer than approvalTimeout/,
    );
    expect(existsSync(path)).toBe(false);
  });

  test('a pause whose state would pass 1 MiB, with no journal store, is refused before anything is asked', async () => {
    const answer = await call(manual, `const big = await bad.huge({ mib: 1 }); ${echo('after')}`);
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(
      /^The program paused for an approval, but its state is \d+ characters, past the 1048576/,
    );
    const length = Number(/state is (\d+) characters/.exec(text(answer))?.[1]);
    expect(text(answer)).toBe(stateTooLargeMessage(length, REQUEST_STATE_LIMIT));
  });
});

describe('over Streamable HTTP, with a journal store', () => {
  test('accepted: the retry resumes the run, and the same state again is refused as replayed', async () => {
    const first = await call(overHttp, echo('http'));
    expect(first.requestState).toMatch(/^cma1\.1a\.t/);
    const retry = { state: first.requestState as string, responses: { 'approve-1': ACCEPT } };
    const done = await call(overHttp, echo('http'), retry);
    expect(done.structuredContent).toEqual({ value: 'http' });
    const again = await call(overHttp, echo('http'), retry);
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(
      /could not resume its program \(TOKEN_REPLAYED: .*\); nothing was run\. This requestState has resumed/,
    );
  });

  test('a client that fulfils the rounds itself gets the approved call made, over HTTP too', async () => {
    const client = approvalClient('approval-rounds-http-auto', false);
    const questions: string[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push((request.params as { message: string }).message);
      return { action: 'accept', content: {} };
    });
    await client.connect(httpBridge(httpUrl, TOKEN));
    try {
      const answer = (await client.callTool(
        { name: 'execute', arguments: { code: echo('over http') } },
        { timeout: 60_000 },
      )) as Answer;
      expect(answer.structuredContent).toEqual({ value: 'over http' });
      expect(questions).toEqual([approvalQuestion('"bad"', '"echo"', [], ['  "value": "over http"'])]);
    } finally {
      await client.close();
    }
  });

  test('a state too large to hand out is kept in the store, and the client holds a reference', async () => {
    const code = `const big = await bad.huge({ mib: 1 }); const answer = await bad.echo({ value: 'big' }); return [big.length, answer.value];`;
    const first = await call(overHttp, code);
    expect(first.requestState).toMatch(/^cma1\.2a\.r[A-Za-z0-9_-]{22}$/);
    const done = await call(overHttp, code, {
      state: first.requestState as string,
      responses: { 'approve-2': ACCEPT },
    });
    expect(done.isError, text(done)).toBeUndefined();
    expect(JSON.parse(text(done))).toEqual([1024 * 1024, 'big']);
  });

  test("a stdio client's state is refused over HTTP: another client, though the key is the same", async () => {
    const first = await call(manual, echo('moved'));
    const answer = await call(overHttp, echo('moved'), {
      state: first.requestState as string,
      responses: { 'approve-1': ACCEPT },
    });
    expect(answer.isError).toBe(true);
    expect(text(answer)).toMatch(/could not resume its program \(TOKEN_MISMATCH: /);
  });
});

test('the command without a key over HTTP says approvals resume only on that instance', async () => {
  const config = writeConfig({ mcpServers: { bad: misbehaving() }, approvals: { bad: 'ask' } });
  const child = spawn(process.execPath, [BIN, 'mcp', '--config', config, '--http', '0'], {
    env: { ...process.env, CODEMODE_DURABLE_KEYS: undefined, CODEMODE_DURABLE_KEYS_FILE: undefined },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('serving MCP on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  expect(stderr).toContain('an answer resumes its run only on this instance');
}, 60_000);
