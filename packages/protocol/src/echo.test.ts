/**
 * A refusal repeats at most the start of a name it refuses (echo.ts): a message type, an unknown
 * field, a key in a path, a provider name, an id. Each arrives from whoever sent the message, a
 * client or a pool child running hostile code, and repeated whole made the refusal as large as the
 * message.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { ECHO_LIMIT, ECHO_LIST_LIMIT, echo, echoList, REASON_ECHO_LIMIT } from './echo.ts';
import { ID_LIMIT } from './limits.ts';
import { validateProviders } from './providers.ts';
import { decodeMessage, formatPath, validateMessage } from './validate.ts';

const MEGABYTES = 4 * 1024 * 1024;
/** Longer than any refusal names a cut name in, and far shorter than the name. */
const REFUSAL_BOUND = 2000;

function faultOf(decoded: ReturnType<typeof validateMessage>) {
  expect(decoded.ok).toBe(false);
  if (decoded.ok) throw new Error('accepted');
  return decoded.fault;
}

describe('echo', () => {
  test('keeps a name of at most ECHO_LIMIT characters as it is', () => {
    expect(echo('')).toBe('');
    expect(echo('nope')).toBe('nope');
    expect(echo('x'.repeat(ECHO_LIMIT))).toBe('x'.repeat(ECHO_LIMIT));
  });

  test('cuts a longer one to its start and says how long it was', () => {
    expect(echo('x'.repeat(ECHO_LIMIT + 1))).toBe(
      `${'x'.repeat(ECHO_LIMIT)}… (${ECHO_LIMIT + 1} characters)`,
    );
    expect(echo('y'.repeat(MEGABYTES))).toBe(`${'y'.repeat(ECHO_LIMIT)}… (${MEGABYTES} characters)`);
  });

  test('never splits a surrogate pair where it cuts', () => {
    const name = `${'a'.repeat(ECHO_LIMIT - 1)}😀${'b'.repeat(10)}`;
    const cut = echo(name);
    expect(cut.isWellFormed()).toBe(true);
    expect(cut).toBe(`${'a'.repeat(ECHO_LIMIT - 1)}… (${name.length} characters)`);
  });

  test('cuts at the limit it is given: a child reason at REASON_ECHO_LIMIT', () => {
    const reason = 'r'.repeat(REASON_ECHO_LIMIT);
    expect(echo(reason, REASON_ECHO_LIMIT)).toBe(reason);
    expect(echo(`${reason}!`, REASON_ECHO_LIMIT)).toBe(`${reason}… (${REASON_ECHO_LIMIT + 1} characters)`);
    const paired = `${'a'.repeat(REASON_ECHO_LIMIT - 1)}😀`;
    expect(echo(paired, REASON_ECHO_LIMIT)).toBe(
      `${'a'.repeat(REASON_ECHO_LIMIT - 1)}… (${REASON_ECHO_LIMIT + 1} characters)`,
    );
  });

  test('a cut keeps none of the text it was cut from', () => {
    // A slice in V8 can be a view holding its whole source: twenty kept refusals of 4 MB names
    // held 80 MB before the cut was copied.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = Array.from({ length: 20 }, (_, index) =>
      echo(`${'f'.repeat(MEGABYTES)}${index}`, REASON_ECHO_LIMIT),
    );
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(16 * 1024 * 1024);
    expect(kept.every((cut) => cut.startsWith('f'.repeat(REASON_ECHO_LIMIT)))).toBe(true);
  });

  test('lists at most ECHO_LIST_LIMIT names and counts the rest', () => {
    expect(echoList(['a'])).toBe("'a'");
    const names = Array.from({ length: ECHO_LIST_LIMIT + 3 }, (_, index) => `k${index}`);
    expect(echoList(names)).toBe(
      `${names
        .slice(0, ECHO_LIST_LIMIT)
        .map((name) => `'${name}'`)
        .join(', ')} and 3 more`,
    );
  });
});

describe('a refusal of a message with a huge name', () => {
  test('an unknown type of megabytes is named by its start, and read from the wire the same', () => {
    const message = { type: 'n'.repeat(MEGABYTES), id: 'e1' };
    for (const fault of [
      faultOf(validateMessage(message)),
      faultOf(decodeMessage(JSON.stringify(message))),
    ]) {
      expect(fault.message).toContain(`Unknown message type "${echo(message.type)}"; expected one of hello,`);
      expect(fault.message.length).toBeLessThan(REFUSAL_BOUND);
      expect(fault.id).toBe('e1');
    }
  });

  test('an id that is not a message id is not answered with: the fault has none', () => {
    for (const id of ['i'.repeat(MEGABYTES), 'i'.repeat(ID_LIMIT + 1), '']) {
      const fault = faultOf(validateMessage({ type: 'nope', id }));
      expect(fault).not.toHaveProperty('id');
      const invalid = faultOf(validateMessage({ type: 'execute', id, request: {} }));
      expect(invalid).not.toHaveProperty('id');
      expect(invalid.message.length).toBeLessThan(REFUSAL_BOUND);
    }
    expect(faultOf(validateMessage({ type: 'nope', id: 'i'.repeat(ID_LIMIT) })).id).toBe(
      'i'.repeat(ID_LIMIT),
    );
  });

  test('unknown fields of megabytes each are listed by their starts, five of them, the rest counted', () => {
    const request: Record<string, unknown> = { code: 'async () => 1' };
    const names = Array.from({ length: 8 }, (_, index) => `${index}${'f'.repeat(MEGABYTES / 8)}`);
    for (const name of names) request[name] = 1;
    const fault = faultOf(validateMessage({ type: 'execute', id: 'e1', request }));
    expect(fault.message).toBe(
      `Invalid execute message: ${echoList(names)} are not known fields in request.`,
    );
    expect(fault.message.length).toBeLessThan(REFUSAL_BOUND);
  });

  test('a module name of megabytes in a path is named by its start', () => {
    const name = `${'m'.repeat(MEGABYTES)}.js`;
    const fault = faultOf(
      // A module of a kind no entry has: encoded as it is, the schema refuses it on the way in.
      decodeMessage(
        JSON.stringify({
          type: 'execute',
          id: 'e1',
          request: { code: 'async () => 1', modules: { [name]: 7 } },
        }),
      ),
    );
    expect(fault.message).toContain(`request.modules[${JSON.stringify(echo(name))}]`);
    expect(fault.message.length).toBeLessThan(REFUSAL_BOUND);
  });

  test('a module name of megabytes that reads as an identifier is named by its start too', () => {
    // Only names that are not identifiers were cut: this one came back whole, 10 MB of fault.
    const name = 'm'.repeat(MEGABYTES);
    const fault = faultOf(
      decodeMessage(
        JSON.stringify({
          type: 'execute',
          id: 'e1',
          request: { code: 'async () => 1', modules: { [name]: { js: '', extra: 1 } } },
        }),
      ),
    );
    expect(fault.message).toBe(
      `Invalid execute message: 'extra' is not a known field in request.modules[${JSON.stringify(echo(name))}].`,
    );
    expect(formatPath(['request', 'modules', 'm'.repeat(ECHO_LIMIT)])).toBe(
      `request.modules.${'m'.repeat(ECHO_LIMIT)}`,
    );
  });

  test('a provider name of megabytes is named by its start, whichever rule it breaks', () => {
    const spaced = `not ${'p'.repeat(MEGABYTES)}`;
    const long = `p${'q'.repeat(MEGABYTES)}`;
    const refusal = (names: string[]) => {
      try {
        validateProviders(names.map((name) => ({ name })));
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal([spaced])).toContain(
      `Provider name ${JSON.stringify(echo(spaced))} is not a valid JavaScript identifier`,
    );
    expect(refusal([long, long])).toBe(
      `Provider name "${echo(long)}" is declared twice; each provider needs its own name.`,
    );
    for (const text of [refusal([spaced]), refusal([long, long])])
      expect(text.length).toBeLessThan(REFUSAL_BOUND);
  });
});
