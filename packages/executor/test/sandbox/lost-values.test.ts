/**
 * The envelope's notes (issue 26 item 9, docs/protocol.md "The result envelope"): what a result or
 * a tool call's arguments lost in serialization, each with its path, through real isolates. The
 * values themselves still travel exactly as the codec has always written them.
 */
import { buildDispatch, NOTE_LIMIT } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import type { DispatchFunction } from '../../src/sandbox/dispatch.ts';
import { LOST_VALUE_TEXTS, NOTE_WALK_VALUES, NOTES_OVERFLOW_TEXT } from '../../src/sandbox/lost-values.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

/** Tools that answer what they received, as JSON text, so a test sees what arrived. */
const received: string[] = [];
const dispatch = buildDispatch(
  [
    { name: 'api', fns: { send: (...args: unknown[]) => received.push(JSON.stringify(args)) } },
    {
      name: 'one',
      positionalArgs: false,
      fns: { send: (input: unknown) => received.push(JSON.stringify(input)) },
    },
  ],
  undefined,
) as DispatchFunction;
const providers = [{ name: 'api' }, { name: 'one', positionalArgs: false }];

describe('a result that lost information says where and what', () => {
  test('each kind of value JSON changes without a word, at its path', async () => {
    const envelope = await sandbox.execute({
      code: `async () => ({
  m: new Map([[1, 2]]), s: new Set([1]), f() {}, u: undefined, list: [undefined, () => 1, NaN, Infinity, -Infinity, -0],
  p: Promise.resolve(1), e: new Error('boom'), r: /re/g, sym: Symbol('s'), 'odd key': { deep: [new Map()] },
  fine: { n: 1, s: 'x', d: new Date(0), bytes: new Uint8Array([1]), nul: null },
})`,
    });
    expect(envelope.result).toStrictEqual({
      m: {},
      s: {},
      list: [null, null, null, null, null, 0],
      p: {},
      e: {},
      r: {},
      'odd key': { deep: [{}] },
      fine: { n: 1, s: 'x', d: '1970-01-01T00:00:00.000Z', bytes: new Uint8Array([1]), nul: null },
    });
    expect(envelope.notes).toStrictEqual([
      `result.m: ${LOST_VALUE_TEXTS.map}`,
      `result.s: ${LOST_VALUE_TEXTS.set}`,
      `result.f: ${LOST_VALUE_TEXTS.functionDropped}`,
      `result.u: ${LOST_VALUE_TEXTS.undefinedDropped}`,
      `result.list[0]: ${LOST_VALUE_TEXTS.undefinedNull}`,
      `result.list[1]: ${LOST_VALUE_TEXTS.functionNull}`,
      `result.list[2]: ${LOST_VALUE_TEXTS.nan}`,
      `result.list[3]: ${LOST_VALUE_TEXTS.infinity}`,
      `result.list[4]: ${LOST_VALUE_TEXTS.negativeInfinity}`,
      NOTES_OVERFLOW_TEXT,
    ]);
    expect(envelope.notes).toHaveLength(NOTE_LIMIT);
  });

  test('the rest of the kinds, in a result of their own', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  class Box { get size() { return 1 } }
  return { z: -0, p: Promise.resolve(1), e: new Error('boom'), r: /re/g, sym: Symbol('s'), box: new Box(), 'odd key': { deep: [new Map()] } };
}`,
    });
    expect(envelope.notes).toStrictEqual([
      `result.z: ${LOST_VALUE_TEXTS.negativeZero}`,
      `result.p: ${LOST_VALUE_TEXTS.promise}`,
      `result.e: ${LOST_VALUE_TEXTS.error}`,
      `result.r: a RegExp ${LOST_VALUE_TEXTS.empty}`,
      `result.sym: ${LOST_VALUE_TEXTS.symbolDropped}`,
      `result.box: a Box ${LOST_VALUE_TEXTS.empty}`,
      `result["odd key"].deep[0]: ${LOST_VALUE_TEXTS.map}`,
    ]);
  });

  test('a result that forgot an await, and one that is a function', async () => {
    const forgot = await sandbox.execute({
      code: `async () => { const data = Promise.resolve([1]); return { data } }`,
    });
    expect(forgot).toStrictEqual({
      result: { data: {} },
      logs: [],
      notes: [`result.data: ${LOST_VALUE_TEXTS.promise}`],
    });
    const fn = await sandbox.execute({ code: `async () => () => 1` });
    expect(fn).toStrictEqual({
      result: undefined,
      logs: [],
      notes: [`result: ${LOST_VALUE_TEXTS.functionDropped}`],
    });
  });

  test('plain data, undefined as the whole result, and a result that failed to serialize carry no notes', async () => {
    for (const code of [
      `async () => ({ a: [1, 'x', null, true, { b: 2 }], c: Object.create(null) })`,
      `async () => undefined`,
      `async () => { console.log('x') }`,
    ]) {
      expect(await sandbox.execute({ code })).not.toHaveProperty('notes');
    }
    const failed = await sandbox.execute({ code: `async () => ({ m: new Map(), n: 10n })` });
    expect(failed.error).toBe('Do not know how to serialize a BigInt');
    expect(failed).not.toHaveProperty('notes');
  });

  test('the walk stops at its value budget: a loss past it goes unnoted, the result unchanged', async () => {
    const envelope = await sandbox.execute({
      code: `async () => ({ many: Array.from({ length: ${NOTE_WALK_VALUES} }, (_, i) => i), late: NaN })`,
    });
    expect((envelope.result as { many: number[] }).many).toHaveLength(NOTE_WALK_VALUES);
    expect(envelope).not.toHaveProperty('notes');
  });

  test('a getter or a proxy runs no more often than the serialization itself reads it', async () => {
    const envelope = await sandbox.execute({
      code: `async () => {
  let reads = 0;
  const traps = new Proxy({ a: 1 }, { get(target, key) { if (key === 'a') reads++; return Reflect.get(target, key) } });
  const value = { get counted() { reads++; return new Map() }, traps };
  return JSON.stringify(value) && { value, readsBefore: reads };
}`,
    });
    // JSON.stringify read each once before the return; the envelope's serialization once more.
    expect(envelope.result).toStrictEqual({ value: { counted: {}, traps: { a: 1 } }, readsBefore: 2 });
    expect(envelope.notes).toStrictEqual([`result.value.counted: ${LOST_VALUE_TEXTS.map}`]);
  });
});

describe("a tool call's arguments that lost information say which call and where", () => {
  test('a function passed to a tool arrives as null, and says so', async () => {
    received.length = 0;
    const envelope = await sandbox.execute({
      code: `async () => { await api.send('a', (x) => x, { when: undefined, set: new Set([1]) }); await one.send({ cb() {}, n: NaN }); return 'sent' }`,
      providers,
      dispatch,
    });
    expect(received).toStrictEqual(['["a",null,{"set":{}}]', '{"n":null}']);
    expect(envelope).toStrictEqual({
      result: 'sent',
      logs: [],
      notes: [
        `api.send args[1]: ${LOST_VALUE_TEXTS.functionNull}`,
        `api.send args[2].when: ${LOST_VALUE_TEXTS.undefinedDropped}`,
        `api.send args[2].set: ${LOST_VALUE_TEXTS.set}`,
        `one.send args.cb: ${LOST_VALUE_TEXTS.functionDropped}`,
        `one.send args.n: ${LOST_VALUE_TEXTS.nan}`,
      ],
    });
  });

  test('the same loss in a loop is noted once; a function as the single object is noted as null', async () => {
    const envelope = await sandbox.execute({
      code: `async () => { for (let i = 0; i < 50; i++) await api.send(i, undefined); await one.send(() => 1); }`,
      providers,
      dispatch,
    });
    expect(envelope.notes).toStrictEqual([
      `api.send args[1]: ${LOST_VALUE_TEXTS.undefinedNull}`,
      `one.send args: ${LOST_VALUE_TEXTS.functionNull}`,
    ]);
  });

  test('notes stay beside an error, and beside a code', async () => {
    const failed = await sandbox.execute({
      code: `async () => { await api.send(new Map()); throw new Error('after') }`,
      providers,
      dispatch,
    });
    expect(failed).toMatchObject({ error: 'after', notes: [`api.send args[0]: ${LOST_VALUE_TEXTS.map}`] });
    const timedOut = await sandbox.execute({
      code: `async () => { await api.send(NaN); while (true) {} }`,
      providers,
      dispatch,
      timeout: 200,
    });
    expect(timedOut).toMatchObject({ code: 'TIMEOUT', notes: [`api.send args[0]: ${LOST_VALUE_TEXTS.nan}`] });
  });
});
