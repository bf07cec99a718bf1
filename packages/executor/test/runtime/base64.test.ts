/**
 * atob and btoa inside the isolate (https://html.spec.whatwg.org/multipage/webappapis.html#atob),
 * beyond the WPT table (wpt/conformance.test.ts): workerd's error texts, the forgiving-base64
 * whitespace and padding rules, and btoa over every Latin-1 code point.
 */
import { expect, test } from 'vitest';
import { resultOf, useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

const run = (code: string) => resultOf(sandbox, code);

const ATOB_MESSAGE =
  "atob() called with invalid base64-encoded data. (Only whitespace, '+', '/', alphanumeric ASCII, and up to two terminal '=' signs when the input data length is divisible by 4 are allowed.)";

test("atob and btoa throw workerd's DOMExceptions and TypeErrors", async () => {
  expect(
    await run(`async () => {
    const t = (f) => { try { return f(); } catch (e) { return [e.constructor.name, e.name, e.code, e.message]; } };
    return [t(() => atob('*')), t(() => atob('abcde')), t(() => btoa('\\u0100')), t(() => atob()), t(() => btoa()), t(() => atob(undefined)),
      t(() => btoa(Symbol())), [atob.length, btoa.length, atob.name, btoa.name]];
  }`),
  ).toStrictEqual([
    ['DOMException', 'InvalidCharacterError', 5, ATOB_MESSAGE],
    ['DOMException', 'InvalidCharacterError', 5, ATOB_MESSAGE],
    [
      'DOMException',
      'InvalidCharacterError',
      5,
      'btoa() can only operate on characters in the Latin1 (ISO/IEC 8859-1) range.',
    ],
    [
      'TypeError',
      'TypeError',
      null,
      "Failed to execute 'atob' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'string'.",
    ],
    [
      'TypeError',
      'TypeError',
      null,
      "Failed to execute 'btoa' on 'ServiceWorkerGlobalScope': parameter 1 is not of type 'String'.",
    ],
    ['DOMException', 'InvalidCharacterError', 5, ATOB_MESSAGE],
    ['TypeError', 'TypeError', null, 'Cannot convert a Symbol value to a string'],
    [0, 0, 'atob', 'btoa'],
  ]);
});

test('forgiving-base64: ASCII whitespace anywhere, padding only to a multiple of four, and round trips', async () => {
  expect(
    await run(`async () => {
    let all = ''; for (let i = 0; i < 256; i++) all += String.fromCharCode(i);
    const ok = (f) => { try { return f(); } catch (e) { return e.name; } };
    return [atob(' Y\\fW\\tJ\\njZ A=\\r= '), atob('YQ'), atob('YQ=='), ok(() => atob('YQ=')), ok(() => atob('YQ===')), ok(() => atob('Y\\u00a0Q==')),
      atob(''), btoa(''), btoa('ab'), btoa('abcde'), btoa(null), btoa(undefined), btoa(all) , atob(btoa(all)) === all, btoa('\\u00ff\\u00ff\\u00c0')];
  }`),
  ).toStrictEqual([
    'abcd',
    'a',
    'a',
    'InvalidCharacterError',
    'InvalidCharacterError',
    'InvalidCharacterError',
    '',
    '',
    'YWI=',
    'YWJjZGU=',
    'bnVsbA==',
    'dW5kZWZpbmVk',
    'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==',
    true,
    '///A',
  ]);
});
