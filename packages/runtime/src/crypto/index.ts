/**
 * crypto: getRandomValues, randomUUID and crypto.subtle (https://w3c.github.io/webcrypto/), served
 * by the host's random source and the host's webcrypto through the crypto bridge.
 */

import { getRandomValues, randomUUID } from '../crypto-random.ts';
import { exposeMember } from '../global-scope.ts';

export function installCrypto(): void {
  exposeMember('crypto', { getRandomValues, randomUUID });
}
