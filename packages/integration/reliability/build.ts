/**
 * The packages' builds, for the commands: users load dist/, and a pool loaded from the sources
 * forks its children on the .ts entry, which Node strips of types at load at a cost of tens of MB
 * per child that no user pays (docs/benchmarks.md). This package depends on both, so their names
 * resolve to their built entries.
 */
import { parseArgs } from 'node:util';

export async function loadBuild(): Promise<{
  readonly executor: typeof import('@supolka/codemode-executor');
  readonly server: typeof import('@supolka/codemode-server');
}> {
  return {
    executor: await import('@supolka/codemode-executor'),
    server: await import('@supolka/codemode-server'),
  };
}

/** The command's flags, `--name N`, as numbers, each with its default; anything else is an error naming the flags. */
export function numberFlags<Names extends string>(
  argv: readonly string[],
  defaults: Readonly<Record<Names, number>>,
): Record<Names, number> {
  const names = Object.keys(defaults) as Names[];
  const usage = names.map((name) => `--${name} N`).join(' ');
  let values: Record<string, string | undefined>;
  try {
    const options = Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));
    ({ values } = parseArgs({ args: [...argv], options, strict: true }) as {
      values: Record<string, string>;
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}; the flags are ${usage}`);
  }
  const read = {} as Record<Names, number>;
  for (const name of names) {
    const text = values[name];
    const value = text === undefined ? defaults[name] : Number(text);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a number, not ${text}`);
    read[name] = value;
  }
  return read;
}
