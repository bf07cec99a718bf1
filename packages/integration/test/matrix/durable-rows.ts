/**
 * The durable rows of the path matrix (issue 25, docs/durable.md): a run that a tool pauses, then
 * resumed through the same door with the caller's answer, must end as the run straight through
 * would, its logs those of both envelopes together; and a resume with a tampered token is refused
 * before anything runs; fetch before and after a pause, proxied and native, replays the first
 * answer from the journal and performs the second. The doors that offer durability are the
 * Sandbox, IsolateExecutor in both forms (the Code Mode form with its own `durable` option and
 * resume), serve with ExecutorClient and the `run`/`resume` commands; runCode, the Code Mode
 * contract's own caller, never asks for it, and the MCP bridge's programs call upstream tools,
 * which cannot pause them.
 */
import type { Behaviour } from './door.ts';

export const DURABLE_ROWS: Behaviour[] = [
  {
    name: 'a durable run paused by a tool and resumed with the answer',
    providers: ['math', 'approval'],
    body: `console.log('before');
const amount = await math.add(1, 2);
const answer = await approval.ask('refund', amount);
console.log('after', answer);
return { amount, answer, random: Math.random() < 1, clock: Date.now() > 0, uuid: crypto.randomUUID().length };`,
    durable: { answers: { 2: { result: 'yes' } } },
    needs: ['durable'],
    expected: {
      result: { amount: 3, answer: 'yes', random: true, clock: true, uuid: 36 },
      logs: ['before', 'after yes'],
      paused: 'approval {"what":"refund","amount":3} pending 2 approval.ask',
    },
  },
  {
    name: 'a durable run resumed with an error for its pending call',
    providers: ['approval'],
    body: `try {
  await approval.ask('delete', 1);
  return 'approved';
} catch (error) {
  return 'refused: ' + error.message;
}`,
    durable: { answers: { 1: { error: 'not today' } } },
    needs: ['durable'],
    expected: {
      result: 'refused: not today',
      logs: [],
      paused: 'approval {"what":"delete","amount":1} pending 1 approval.ask',
    },
  },
  {
    // The first request's answer comes from the journal on resume; the second goes out live.
    name: 'a durable run with a proxied fetch before its pause and one after',
    outbound: 'proxied',
    providers: ['approval'],
    body: `const first = await fetch('https://api.test/before', { method: 'POST', body: 'a' }).then((r) => r.text());
const answer = await approval.ask('send', 1);
const second = await fetch('https://api.test/after').then((r) => r.text());
return [first, answer, second];`,
    durable: { answers: { 1: { result: 'yes' } } },
    needs: ['durable', 'proxied-fetch'],
    expected: {
      result: ['proxied POST https://api.test/before a', 'yes', 'proxied GET https://api.test/after'],
      logs: [],
      paused: 'approval {"what":"send","amount":1} pending 1 approval.ask',
    },
  },
  {
    name: 'a durable run with a native fetch before its pause and one after',
    outbound: 'native',
    providers: ['approval'],
    body: `const first = await fetch('__LOOPBACK__/before?q=1').then((r) => r.text());
const answer = await approval.ask('send', 2);
const second = await fetch('__LOOPBACK__/after', { method: 'POST', body: 'b' }).then((r) => r.text());
return [first, answer, second];`,
    durable: { answers: { 1: { result: 'yes' } } },
    needs: ['durable', 'native-fetch', 'loopback-opt-in'],
    expected: {
      result: ['native GET /before?q=1', 'yes', 'native POST /after'],
      logs: [],
      paused: 'approval {"what":"send","amount":2} pending 1 approval.ask',
    },
  },
  {
    name: 'a resume with a tampered token is refused before anything runs',
    providers: ['approval'],
    body: "return await approval.ask('wire', 5);",
    durable: { answers: { 1: { result: 'sent' } }, tamper: true },
    needs: ['durable'],
    expected: {
      code: 'TOKEN_FORGED',
      logs: [],
      paused: 'approval {"what":"wire","amount":5} pending 1 approval.ask',
    },
    // The sentence is the token module's, the same everywhere; the code is what a caller branches on.
    view: (outcome) => ({ code: outcome.code, paused: outcome.paused, result: outcome.result }),
  },
];
