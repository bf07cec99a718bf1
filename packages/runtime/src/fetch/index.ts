/** The Fetch standard's interfaces and fetch itself, plus Blob, File and FormData. */
import { exposeInterface, exposeMember } from '../global-scope.ts';
import { registerPlatformInterface } from '../structured-clone.ts';
import { Blob, File } from './blob.ts';
import { fetch } from './fetch.ts';
import { FormData } from './form-data.ts';
import { Headers } from './headers.ts';
import { Request } from './request.ts';
import { Response } from './response.ts';
import { connectUrl } from './url.ts';

export function installFetch(): void {
  connectUrl();
  exposeInterface('Blob', registerPlatformInterface(Blob));
  exposeInterface('File', registerPlatformInterface(File));
  exposeInterface('FormData', registerPlatformInterface(FormData));
  exposeInterface('Headers', registerPlatformInterface(Headers));
  exposeInterface('Request', registerPlatformInterface(Request));
  exposeInterface('Response', registerPlatformInterface(Response));
  exposeMember('fetch', fetch);
}
