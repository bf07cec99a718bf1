/**
 * The provider namespaces of the entry module. Each descriptor becomes one declaration, built by
 * the internal module's __provider (or the descriptor's proxySource, verbatim), and every prelude
 * comes after all of them: provider source commonly reaches its own namespace, and source running
 * ahead of the declarations would die in the temporal dead zone of its own const.
 */
import type { ProviderDescriptor } from '@supolka/codemode-protocol/wire';

export interface ProviderSources {
  /** One declaration per provider, in order. */
  readonly declarations: string;
  /** Every prelude, in provider order, after all declarations. */
  readonly preludes: string;
}

export function buildProviderSources(providers: readonly ProviderDescriptor[]): ProviderSources {
  const declarations = providers.map((provider) =>
    provider.proxySource !== undefined
      ? provider.proxySource
      : // Only an explicit false selects the single-object convention.
        `const ${provider.name} = __provider(${JSON.stringify(provider.name)}, ${provider.positionalArgs !== false});`,
  );
  const preludes = providers.flatMap((provider) =>
    provider.prelude === undefined ? [] : [provider.prelude],
  );
  return { declarations: declarations.join('\n'), preludes: preludes.join('\n') };
}
