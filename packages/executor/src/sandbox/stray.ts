/**
 * Calls the sandbox makes into an isolate for its own purposes, on an engine without an
 * unhandled-rejection callback. Released isolated-vm throws a promise that user code rejected with
 * no handler out of the next host-to-isolate call, whatever it is (adr/0002). So each such call is
 * a script that cannot throw by itself: a throw out of it is that stray rejection, dropped, and the
 * call is made again. Only a disposed isolate ends the attempts.
 */
import type { IsolateHandle } from './isolate.ts';

export async function callIsolate<T>(handle: IsolateHandle, call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (handle.isolate.isDisposed) throw error;
    }
  }
}

/** The synchronous form, for the calls made while an isolate is prepared. */
export function callIsolateSync<T>(handle: IsolateHandle, call: () => T, attempts = 8): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return call();
    } catch (error) {
      if (handle.isolate.isDisposed || attempt >= attempts) throw error;
    }
  }
}
