/**
 * The Code Mode form's arguments, `(code, providersOrFns, options?)`, made into the request
 * IsolateExecutor runs: the code normalized into the entry (by `normalize`, which reads it off the
 * caller's thread: normalize-lanes.ts), each provider's fns keyed by the names
 * the program calls, connectors as providers served by their bindings. Nothing else is set, so the
 * executor's defaults apply, among them outbound `null`: no network unless the executor was
 * configured for it, as with the contract's own executor.
 */
import { BadRequestError } from '@supolka/codemode-protocol/wire';
import type { HostProvider, IsolateExecuteRequest } from '../executor/request.ts';
import type { CodePositions } from './code-positions.ts';
import { checkConnectors, serveConnectors } from './connectors.ts';
import type { CodeModeFns, CodeModeProvider } from './contract.ts';
import { OPTIONS_MESSAGE, PROVIDERS_MESSAGE, providerMessage } from './errors.ts';
import { sanitizeFns } from './sanitize.ts';

/** The namespace a bare record of fns is served under. */
const DEFAULT_PROVIDER = 'codemode';

/** The entry of the code and where the code sits in it, or a throw of the CodemodeError that ends the execution. */
export type NormalizeCode = (code: string) => Promise<{ code: string; positions: CodePositions }>;

/**
 * Rejects with BadRequestError naming the argument that does not hold, and with what `normalize`
 * throws. The arguments are checked before the code is read. `positions` tells positions in the
 * entry code in the code as the model wrote it (code-positions.ts).
 */
export async function codeModeRequest(
  code: string,
  providersOrFns: unknown,
  options: unknown,
  normalize: NormalizeCode,
): Promise<{ request: IsolateExecuteRequest; positions: CodePositions }> {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new BadRequestError(OPTIONS_MESSAGE);
  }
  const connectors = checkConnectors((options as { connectors?: unknown } | undefined)?.connectors);
  const providers: HostProvider[] = readProviders(providersOrFns).map(({ name, fns, prelude }) => ({
    name,
    fns: sanitizeFns(name, fns),
    ...(prelude !== undefined ? { prelude } : {}),
  }));
  // A connector is a namespace without fns: the request's dispatch serves it.
  for (const { name } of connectors) providers.push({ name });
  const dispatch = serveConnectors(connectors);
  const entry = await normalize(code);
  return {
    request: { code: entry.code, providers, ...(dispatch ? { dispatch } : {}) },
    positions: entry.positions,
  };
}

function readProviders(value: unknown): readonly CodeModeProvider[] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null) throw new BadRequestError(PROVIDERS_MESSAGE);
  if (!Array.isArray(value)) return [{ name: DEFAULT_PROVIDER, fns: value as CodeModeFns }];
  value.forEach((provider: unknown, index) => {
    const { name, fns } = (provider ?? {}) as { name?: unknown; fns?: unknown };
    if (typeof name !== 'string' || typeof fns !== 'object' || fns === null) {
      throw new BadRequestError(providerMessage(index));
    }
  });
  return value as readonly CodeModeProvider[];
}
