/**
 * The main module of a case Worker (workerd side): the console capture and the run of the entry,
 * as the executor's entry runs it. Module name in the case Worker: __codemode_harness.js.
 *
 * Order matters and mirrors the executor: the capture is installed when this module loads, before
 * any case module evaluates; evaluate() connects the dispatcher, imports the entry (whose static
 * graph, the case's modules included, evaluates in workerd's global scope, as the executor's
 * does), then calls the arrow in the request's scope and reports the envelope with the protocol's
 * rules: the codec for the result, an Error's message or String of anything else for the error.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import { stringifyForDispatch } from './__codemode_codec.js';
import { connectDispatcher } from './__codemode_support.js';

// Bound at load, before any case code runs: a program that replaces a built-in later changes
// what it sees, never what the envelope reports.
const ErrorCtor = Error;
const TypeErrorCtor = TypeError;
const StringCtor = String;
const PromiseCtor = Promise;
const RequestCtor = Request;
const ResponseCtor = Response;
const apply = Reflect.apply;
const then = Promise.prototype.then;
const hasInstance = Function.prototype[Symbol.hasInstance];
const setTimer = setTimeout;
const clearTimer = clearTimeout;
const jsonStringify = JSON.stringify;
const arrayFrom = Array.from;
const responseText = Response.prototype.text;
const arraySlice = Array.prototype.slice;

/** Captured lines: { level, text }, in the order written. */
const logs = [];

/** workerd's own console, bound before the capture replaces it. */
const workerdConsole = console;
const workerdWrite = { log: console.log, warn: console.warn, error: console.error };

/**
 * Set by evaluate for a case that compares workerd's own format (consoleFormat 'inspect'): each
 * line then goes to workerd's console between two marker lines, `<mark> <index> open` and
 * `<mark> <index> close`, and the suite reads its text back from workerd's stdout or stderr
 * (src/workerd/console-transcript.ts); the captured line holds its level and an empty text.
 */
let consoleMark;

/** The lines written so far, copied with the slice bound at load. */
const snapshot = () => apply(arraySlice, logs, []);

/** The protocol's formatting rule: String of each argument, joined by single spaces. */
const capture =
  (level) =>
  (...values) => {
    if (consoleMark !== undefined) {
      const index = logs.length;
      const write = workerdWrite[level];
      apply(write, workerdConsole, [`${consoleMark} ${index} open`]);
      apply(write, workerdConsole, values);
      apply(write, workerdConsole, [`${consoleMark} ${index} close`]);
      logs[logs.length] = { level, text: '' };
      return;
    }
    let text = '';
    for (let index = 0; index < values.length; index++)
      text += (index === 0 ? '' : ' ') + StringCtor(values[index]);
    logs[logs.length] = { level, text };
  };

// Only log, warn and error are captured; workerd's other console methods keep writing to its
// own stdout, which the envelope never sees (the executor's write nothing at all).
console.log = capture('log');
console.warn = capture('warn');
console.error = capture('error');

/** The envelope's error text: an Error's message, or String of anything else (the executor's rule). */
function describe(error) {
  try {
    if (apply(hasInstance, ErrorCtor, [error])) return StringCtor(error.message);
    return StringCtor(error);
  } catch {
    return 'The program failed with a value that cannot be turned into text.';
  }
}

const TIMED_OUT = Symbol('timed out');

/** Races the arrow against the run bound, as the executor's __startRun races __timeoutExpired. */
function race(running, timeout) {
  let timer;
  const outcome = new PromiseCtor((resolve, reject) => {
    timer = setTimer(() => resolve(TIMED_OUT), timeout);
    apply(then, running, [resolve, reject]);
  });
  const settle = () => clearTimer(timer);
  return apply(then, outcome, [
    (value) => {
      settle();
      return value;
    },
    (error) => {
      settle();
      throw error;
    },
  ]);
}

/** A retained handler: a bare function or an object with a fetch method (the seed's rule). */
function handlerOf(value) {
  if (typeof value === 'function') return (request) => value(request);
  if (value !== null && typeof value === 'object' && typeof value.fetch === 'function') {
    return (request) => value.fetch(request);
  }
  return undefined;
}

/** Invokes a retained handler with each request and records what it answered. */
async function invokeAll(handler, requests) {
  const responses = [];
  for (const spec of requests) {
    try {
      const request = new RequestCtor(spec.url, {
        method: spec.method ?? 'GET',
        headers: spec.headers ?? [],
        body: spec.body ?? null,
      });
      const response = await handler(request);
      // workerd's own text for a fetch handler that answers something else.
      if (!apply(hasInstance, ResponseCtor, [response])) {
        throw new TypeErrorCtor("Incorrect type for Promise: the Promise did not resolve to 'Response'.");
      }
      responses[responses.length] = {
        status: response.status,
        statusText: response.statusText,
        headers: arrayFrom(response.headers),
        body: await apply(responseText, response, []),
      };
    } catch (error) {
      responses[responses.length] = { error: describe(error) };
    }
  }
  return responses;
}

/** One run: the outcome (codec rules apply to it) and the lines written until it settled. */
async function run(options) {
  let entry;
  try {
    entry = await import('./executor.js');
  } catch (error) {
    return { outcome: { error: describe(error) }, logs: snapshot() };
  }
  let result;
  try {
    result = await race(entry.__run(), options.timeout);
  } catch (error) {
    return { outcome: { error: describe(error) }, logs: snapshot() };
  }
  if (result === TIMED_OUT)
    return { outcome: { error: options.timeoutMessage, code: 'TIMEOUT' }, logs: snapshot() };
  if (options.invoke !== undefined) {
    const handler = handlerOf(result);
    if (handler !== undefined) {
      // What invocations write is not part of the run's lines (the seed's stop()), so the lines
      // are taken before the first invocation.
      const lines = snapshot();
      return {
        outcome: { retained: true, responses: await invokeAll(handler, options.invoke) },
        logs: lines,
      };
    }
    return { outcome: { result, retained: false }, logs: snapshot() };
  }
  return { outcome: { result }, logs: snapshot() };
}

export default class CaseHarness extends WorkerEntrypoint {
  /** Runs the case once; answers `{ outcome, logs }` as JSON, the outcome as codec JSON text. */
  async evaluate(dispatcher, options) {
    connectDispatcher(dispatcher);
    consoleMark = options.consoleMark;
    const { outcome, logs: lines } = await run(options);
    let encoded;
    try {
      encoded = stringifyForDispatch(outcome);
    } catch (error) {
      // A value the codec cannot carry becomes the error it raised, as in the executor.
      encoded = stringifyForDispatch({ error: describe(error) });
    }
    return jsonStringify({ outcome: encoded, logs: lines });
  }
}
