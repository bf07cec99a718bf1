/**
 * URL and URLSearchParams (https://url.spec.whatwg.org/): the runtime's own classes over
 * whatwg-url's parser (whatwg-url.ts).
 */
import { exposeInterface } from '../global-scope.ts';
import { registerPlatformInterface } from '../structured-clone.ts';
import { URL } from './url.ts';
import { URLSearchParams } from './url-search-params.ts';

export { URL, URLSearchParams };

export function installUrl(): void {
  exposeInterface('URL', registerPlatformInterface(URL));
  exposeInterface('URLSearchParams', registerPlatformInterface(URLSearchParams));
}
