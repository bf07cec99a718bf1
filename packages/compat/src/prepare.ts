/**
 * The program as it runs: the loopback placeholder replaced by the real origin, and the request
 * parts both sides derive from a case.
 */
import { executionTimeoutMessage, type ModuleEntry, type ModuleMap } from '@supolka/codemode-protocol';
import { CASE_TIMEOUT, type Case, LOOPBACK_PLACEHOLDER } from './case.ts';
import { providerDescriptor } from './tools/fake.ts';

export interface PreparedCase {
  readonly code: string;
  readonly modules: ModuleMap | undefined;
  readonly providers: readonly { name: string; positionalArgs: boolean }[];
  readonly timeout: number;
  readonly timeoutMessage: string;
}

const substitute = (text: string, origin: string) => text.split(LOOPBACK_PLACEHOLDER).join(origin);

function substituteEntry(entry: ModuleEntry, origin: string): ModuleEntry {
  if (typeof entry === 'string') return substitute(entry, origin);
  const out: Record<string, unknown> = { ...entry };
  for (const kind of ['js', 'cjs'] as const) {
    const source = entry[kind];
    if (typeof source === 'string') out[kind] = substitute(source, origin);
  }
  return out as ModuleEntry;
}

export function prepareCase(item: Case, loopbackOrigin: string): PreparedCase {
  const timeout = item.timeout ?? CASE_TIMEOUT;
  return {
    code: substitute(item.code, loopbackOrigin),
    modules:
      item.modules === undefined
        ? undefined
        : Object.fromEntries(
            Object.entries(item.modules).map(([name, entry]) => [
              name,
              substituteEntry(entry, loopbackOrigin),
            ]),
          ),
    providers: (item.tools ?? []).map(providerDescriptor),
    timeout,
    timeoutMessage: executionTimeoutMessage(timeout),
  };
}
