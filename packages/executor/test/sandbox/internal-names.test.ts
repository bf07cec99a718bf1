/**
 * Attacks on the names the sandbox binds inside the isolate (INTERNAL_NAMES, lexed from its
 * generated sources and its entry): a provider named after each one is refused before any isolate
 * exists, and, were the refusal gone, the declaration such a provider makes in the entry (put
 * there through an admitted provider's proxySource, the only way past the rule) can neither reach
 * the internal binding nor replace it. Every binding is driven through a real isolate.
 */
import { INTERNAL_NAMES, InvalidProviderError, validateProviders } from '@supolka/codemode-protocol';
import { describe, expect, test } from 'vitest';
import type { DispatchFunction } from '../../src/sandbox/dispatch.ts';
import { buildEntrySource } from '../../src/sandbox/entry/entry.ts';
import { useSandbox } from '../helpers.ts';

const sandbox = useSandbox();

/** The names the entry imports from the internal module, read off the entry it builds. */
const imported = new Set(
  (
    /^import \{([^}]*)\}/.exec(
      buildEntrySource({ imports: [], body: 'async () => 1', providers: [], timeout: 1 }),
    )?.[1] ?? ''
  )
    .split(',')
    .map((name) => name.trim()),
);

/** A dispatch function that answers every call with the name it was called under, and records it. */
function recording(): { dispatch: DispatchFunction; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    dispatch: async (provider, tool, args) => {
      calls.push(`${provider}.${tool} ${args}`);
      return JSON.stringify({ result: `${provider}.${tool}` });
    },
  };
}

/**
 * A program that reaches its provider under `name` after using the machinery a run depends on:
 * the console, a timer, binary arguments through the codec, and the result's way out.
 */
const program = (name: string) => `async () => {
  console.log('before', typeof ${name});
  await new Promise((resolve) => setTimeout(resolve, 1));
  const reached = await ${name}.whoami(new Uint8Array([1, 2]));
  return { reached, kind: typeof ${name}, bytes: new Uint8Array([3]) };
}`;

/** What an ordinary provider's run gives, with `name` where the provider's name stands. */
async function run(name: string, providers: { name: string; proxySource?: string }[]) {
  const { dispatch, calls } = recording();
  const envelope = await sandbox.execute({ code: program(name), providers, dispatch });
  return { envelope, calls };
}

test('the list holds the entry’s imports and names the sandbox publishes on the global object', () => {
  expect(imported).toStrictEqual(new Set(['__provider', '__startRun']));
  for (const name of [...imported, '__runtimeInternals', '__hostBindings', '__resultJson', '__dispatch'])
    expect(INTERNAL_NAMES).toContain(name);
});

describe.each(INTERNAL_NAMES.map((name) => [name]))('a provider named %s', (name) => {
  test('is refused before any isolate exists, and no tool is called', async () => {
    const { dispatch, calls } = recording();
    const envelope = await sandbox.execute({ code: program(name), providers: [{ name }], dispatch });
    const message = `Provider name "${name}" is reserved: the sandbox binds that name inside the isolate.`;
    expect(() => validateProviders([{ name }])).toThrow(new InvalidProviderError(message));
    expect(envelope).toStrictEqual({ result: undefined, logs: [], error: message, code: 'BAD_REQUEST' });
    expect(calls).toStrictEqual([]);
  });

  test('declared in the entry past the rule, neither reaches nor replaces the binding', async () => {
    // The declaration the entry would make for a provider of that name, beside an admitted one.
    const proxySource = `const ${name} = __provider(${JSON.stringify(name)}, true);\nconst admitted = {};`;
    const attacked = await run(name, [{ name: 'admitted', proxySource }]);
    if (imported.has(name)) {
      // The entry's own import: the module does not compile, so nothing of the program runs.
      expect(attacked.envelope.error).toContain(`Identifier '${name}' has already been declared`);
      expect(attacked.envelope.result).toBeUndefined();
      expect(attacked.envelope.logs).toStrictEqual([]);
      expect(attacked.calls).toStrictEqual([]);
      return;
    }
    // Anything else: the program's `name` is its provider and only that (every call goes to the
    // host under the name), and the run ends as an ordinary provider's does, so no binding the
    // run depends on was replaced.
    const plain = await run('plain', [{ name: 'plain' }]);
    const renamed = (text: string) => text.replaceAll('plain', name);
    expect(attacked.envelope).toStrictEqual({
      ...plain.envelope,
      result: { ...(plain.envelope.result as object), reached: `${name}.whoami` },
    });
    expect(attacked.calls).toStrictEqual(plain.calls.map(renamed));
  });
});

test('after every attack the sandbox still runs an ordinary program', async () => {
  expect(await sandbox.execute({ code: 'async () => 40 + 2' })).toStrictEqual({ result: 42, logs: [] });
});
