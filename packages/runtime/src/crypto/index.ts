/**
 * crypto: getRandomValues, randomUUID and crypto.subtle (https://w3c.github.io/webcrypto/), served
 * by the host's random source and the host's webcrypto through the crypto bridge.
 */
import { exposeInterface, exposeMember } from '../global-scope.ts';
import { registerPlatformInterface } from '../structured-clone.ts';
import { Crypto, createCrypto } from './crypto.ts';
import { CryptoKey } from './crypto-key.ts';
import { SubtleCrypto } from './subtle-crypto.ts';

export function installCrypto(): void {
  for (const [name, value] of [
    ['Crypto', Crypto],
    ['SubtleCrypto', SubtleCrypto],
    ['CryptoKey', CryptoKey],
  ] as const) {
    exposeInterface(name, value);
    // Platform objects: structuredClone refuses them (workerd: DataCloneError for a CryptoKey too).
    registerPlatformInterface(value);
  }
  exposeMember('crypto', createCrypto());
}
