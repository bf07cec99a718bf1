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
  // Platform objects: structuredClone refuses them (workerd: DataCloneError for a CryptoKey too).
  exposeInterface('Crypto', registerPlatformInterface(Crypto));
  exposeInterface('SubtleCrypto', registerPlatformInterface(SubtleCrypto));
  exposeInterface('CryptoKey', registerPlatformInterface(CryptoKey));
  exposeMember('crypto', createCrypto());
}
