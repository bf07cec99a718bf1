import { describe, expect, test } from 'vitest';
import { CODEC_IDENTIFIERS } from './codec-identifiers.ts';
import { InvalidProviderError } from './errors.ts';
import { validateProviders } from './providers.ts';
import { INTERNAL_NAMES, LANGUAGE_GLOBALS, RUNTIME_GLOBALS } from './reserved.ts';

const names = (...list: unknown[]) => list.map((name) => ({ name }));

describe('validateProviders', () => {
  test.each([
    ['codemode'],
    ['files'],
    ['$'],
    ['_private'],
    ['ünïcode'],
    ['a1'],
    ['github_v2'],
    // @cloudflare/codemode's openApiMcpServer sends this; the sandbox binds no such name.
    ['__openapiHost'],
    ['__'],
  ])('accepts %s', (name) => {
    expect(() => validateProviders(names(name))).not.toThrow();
  });

  test('accepts an empty list and several distinct names', () => {
    expect(() => validateProviders([])).not.toThrow();
    expect(() => validateProviders(names('a', 'b', 'c'))).not.toThrow();
  });

  test.each([
    [
      '1files',
      'Provider name "1files" is not a valid JavaScript identifier, so code could not call name.tool().',
    ],
    [
      'my-tools',
      'Provider name "my-tools" is not a valid JavaScript identifier, so code could not call name.tool().',
    ],
    ['', 'Provider name "" is not a valid JavaScript identifier, so code could not call name.tool().'],
    ['a b', 'Provider name "a b" is not a valid JavaScript identifier, so code could not call name.tool().'],
    ['class', 'Provider name "class" is reserved: it is a reserved word of JavaScript.'],
    ['await', 'Provider name "await" is reserved: it is a reserved word of JavaScript.'],
    ['eval', 'Provider name "eval" is reserved: it is a reserved word of JavaScript.'],
    ['__dispatch', 'Provider name "__dispatch" is reserved: the sandbox binds that name inside the isolate.'],
    ['__startRun', 'Provider name "__startRun" is reserved: the sandbox binds that name inside the isolate.'],
    [
      'console',
      'Provider name "console" is reserved: it would hide the global console that programs rely on.',
    ],
    ['JSON', 'Provider name "JSON" is reserved: it would hide the global JSON that programs rely on.'],
    ['fetch', 'Provider name "fetch" is reserved: it would hide the global fetch that programs rely on.'],
  ])('refuses %j', (name, message) => {
    expect(() => validateProviders(names(name))).toThrow(new InvalidProviderError(message));
  });

  test('refuses a name used twice', () => {
    expect(() => validateProviders(names('a', 'b', 'a'))).toThrow(
      'Provider name "a" is declared twice; each provider needs its own name.',
    );
  });

  test('refuses a name that is not a string, naming the provider by position', () => {
    expect(() => validateProviders(names('a', 7))).toThrow(
      'Provider 1 has no name: a provider name must be a string, got number.',
    );
  });

  test('carries BAD_REQUEST, since the request named the providers', () => {
    expect(() => validateProviders(names('class'))).toThrow(
      expect.objectContaining({ code: 'BAD_REQUEST', name: 'InvalidProviderError' }),
    );
  });

  test('reserves every internal name, every identifier the codec declares and every global', () => {
    for (const name of [...INTERNAL_NAMES, ...CODEC_IDENTIFIERS, ...LANGUAGE_GLOBALS, ...RUNTIME_GLOBALS]) {
      expect(() => validateProviders(names(name)), name).toThrow(InvalidProviderError);
    }
  });
});
