/** URL and URLSearchParams (https://url.spec.whatwg.org/). */

export function installUrl(): void {}
