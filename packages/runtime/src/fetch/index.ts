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
  for (const [name, value] of Object.entries({ Blob, File, FormData, Headers, Request, Response })) {
    exposeInterface(name, value);
    registerPlatformInterface(value);
  }
  exposeMember('fetch', fetch);
}
