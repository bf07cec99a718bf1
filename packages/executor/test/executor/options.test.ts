/** IsolateExecutor refuses a bad option at construction, naming it, the rule and the value. */
import { describe, expect, test } from 'vitest';
import { IsolateExecutor } from '../../src/executor/isolate-executor.ts';
import type { IsolateExecutorOptions } from '../../src/executor/options.ts';

const refused: [string, unknown, string][] = [
  ['a misspelt option', { timout: 5 }, 'IsolateExecutor option timout is not a known option.'],
  [
    'a zero timeout',
    { timeout: 0 },
    'IsolateExecutor option timeout must be a whole number from 1 to 2147483647; got 0.',
  ],
  [
    'a fractional timeout',
    { timeout: 1.5 },
    'option timeout must be a whole number from 1 to 2147483647; got 1.5.',
  ],
  [
    'a timeout as text',
    { timeout: '60s' },
    'option timeout must be a whole number from 1 to 2147483647; got "60s".',
  ],
  [
    'a memory limit below the engine minimum',
    { memoryLimit: 4 },
    'option memoryLimit must be a whole number from 8 to 4096; got 4.',
  ],
  ['a negative grace', { grace: -1 }, 'option grace must be a whole number from 0 to 2147483647; got -1.'],
  ['an empty pool', { poolSize: 0 }, 'option poolSize must be a whole number from 1 to 1024; got 0.'],
  [
    'a negative queue',
    { queueLimit: -5 },
    'option queueLimit must be a whole number from 0 to 1000000; got -5.',
  ],
  [
    'a service life of no executions',
    { maxExecutionsPerChild: 0 },
    'option maxExecutionsPerChild must be a whole number from 1',
  ],
  ['a service age of NaN', { maxChildAge: Number.NaN }, 'option maxChildAge must be a whole number from 1'],
  [
    'a heartbeat timeout shorter than its interval',
    { heartbeatInterval: 1000, heartbeatTimeout: 500 },
    'IsolateExecutor option heartbeatTimeout must be longer than heartbeatInterval (1000 ms), or every heartbeat would time out; got 500.',
  ],
  ['an rss bound of zero', { childRssLimit: 0 }, 'option childRssLimit must be a whole number from 1'],
  [
    'no room for retained executions',
    { maxRetainedPerChild: 0 },
    'option maxRetainedPerChild must be a whole number from 1',
  ],
  [
    'an idle timeout of zero',
    { handlesIdleTimeout: 0 },
    'option handlesIdleTimeout must be a whole number from 1',
  ],
  [
    'an outbound mode as text',
    { outbound: 'native' },
    'IsolateExecutor option outbound must be null (disabled), a function (proxied) or undefined (native); got "native".',
  ],
  [
    'modules that are not a map',
    { modules: { 'a.js': 7 } },
    'IsolateExecutor option modules is not a module map: ["a.js"] must be module source text or an object with one of js, cjs, json, text, data',
  ],
  [
    'exec flags that are not text',
    { childExecArgv: [1] },
    'IsolateExecutor option childExecArgv must be a list of strings; got a list.',
  ],
  [
    // No process starts with one: every spawn after would be refused, each answered INTERNAL.
    'an exec flag holding a NUL',
    { childExecArgv: ['--no-node-snapshot', '--x\0y'] },
    'IsolateExecutor option childExecArgv must hold no NUL character; got a list.',
  ],
  [
    'packages as one name',
    { packages: 'zod' },
    'IsolateExecutor option packages must be a list of names, or an object of name → directory; got "zod".',
  ],
  [
    'packages with a directory that is no path',
    { packages: { zod: 1 } },
    'IsolateExecutor option packages must be a list of names, or an object of name → directory; got a object.',
  ],
  [
    'an empty packages base',
    { packagesBase: '' },
    'IsolateExecutor option packagesBase must be a folder path; got "".',
  ],
  [
    'a warm-up window below zero',
    { warmPackages: -1 },
    'IsolateExecutor option warmPackages must be a boolean or a whole number of runs, not negative; got -1.',
  ],
  [
    'a warm-up window that is a word',
    { warmPackages: 'recent' },
    'IsolateExecutor option warmPackages must be a boolean or a whole number of runs, not negative; got "recent".',
  ],
  [
    'an event hook that is not a function',
    { onPoolEvent: true },
    'IsolateExecutor option onPoolEvent must be a function; got true.',
  ],
];

describe('a bad option', () => {
  test.each(refused)('%s is refused at construction with a message naming it', (_, options, message) => {
    let thrown: unknown;
    try {
      new IsolateExecutor(options as IsolateExecutorOptions);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name: 'OptionError', code: 'BAD_REQUEST' });
    expect((thrown as Error).message).toContain(message);
  });

  test('options that are not an object are refused', () => {
    expect(() => new IsolateExecutor(null as never)).toThrow(
      'IsolateExecutor options must be an object; got null.',
    );
  });
});
