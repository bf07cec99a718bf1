/** TextEncoder, TextDecoder and their streams (https://encoding.spec.whatwg.org/). */

export function installEncoding(): void {}
