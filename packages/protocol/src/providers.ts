/** validateProviders: the names a request's providers declare, checked before any isolate exists. */
import { echo } from './echo.ts';
import { InvalidProviderError } from './errors.ts';
import { reservedReason } from './reserved.ts';

/** ECMAScript IdentifierName: ID_Start (or $ or _) followed by ID_Continue (or $, ZWNJ, ZWJ). */
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u;

/**
 * Throws an InvalidProviderError naming the first provider whose name is not a valid JavaScript
 * identifier, is reserved, or repeats an earlier one.
 */
export function validateProviders(providers: readonly { readonly name: unknown }[]): void {
  const seen = new Set<string>();
  for (const [index, provider] of providers.entries()) {
    const name = provider.name;
    if (typeof name !== 'string') {
      throw new InvalidProviderError(
        `Provider ${index} has no name: a provider name must be a string, got ${typeof name}.`,
      );
    }
    if (!IDENTIFIER.test(name)) {
      throw new InvalidProviderError(
        `Provider name ${JSON.stringify(echo(name))} is not a valid JavaScript identifier, so code could not call name.tool().`,
      );
    }
    const reason = reservedReason(name);
    if (reason !== undefined)
      throw new InvalidProviderError(`Provider name "${echo(name)}" is reserved: ${reason}.`);
    if (seen.has(name)) {
      throw new InvalidProviderError(
        `Provider name "${echo(name)}" is declared twice; each provider needs its own name.`,
      );
    }
    seen.add(name);
  }
}
