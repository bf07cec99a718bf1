/**
 * The isolate's half of the crypto bridge (executor src/sandbox/crypto.ts is the host's). An
 * operation crosses as its name and its arguments as data, keys as `{ cryptoKey: n }`; it comes back
 * as a frame, `["returned", value]` or `["thrown", name, message, isDOMException]`, and a failure is
 * rebuilt here with its name, so `catch (e) { e.name === 'OperationError' }` works inside. The
 * frame is taken with a synchronous call once the asynchronous answer (a number) arrives.
 *
 * crypto.subtle waits on the host, so in global scope it is refused as the other host waits are,
 * except digest, which workerd allows there: in global scope the host hashes synchronously, so the
 * module waits on nothing and the promise settles at once. It opens no host wait of the run clock:
 * the run's time counts straight through it.
 */
import { DOMException } from '../dom-exception.ts';
import { hostOf } from '../host.ts';
import { assertRequestScope, scope } from '../internals.ts';
import {
  ErrorCtor,
  ObjectDefineProperty,
  PromiseCtor,
  PromisePrototypeThen,
  RangeErrorCtor,
  ReferenceErrorCtor,
  SyntaxErrorCtor,
  TypeErrorCtor,
} from '../primordials.ts';
import { admitCrossing, releaseCrossing } from './crossing.ts';
import { ownValue } from './records.ts';

/** The operations the host serves, by the names SubtleCrypto declares them under. */
export type SubtleOperation =
  | 'encrypt'
  | 'decrypt'
  | 'sign'
  | 'verify'
  | 'digest'
  | 'generateKey'
  | 'deriveKey'
  | 'deriveBits'
  | 'importKey'
  | 'exportKey'
  | 'wrapKey'
  | 'unwrapKey';

// Arguments and frames are structured-cloned across, so ArrayBuffers and records cross whole. The
// asynchronous answer is only the number the host holds the frame under (executor answers.ts): a
// frame copied in by isolated-vm's own task would abort the process when it meets the memory limit.
// The frame is taken with a synchronous call of that number, where such a copy ends only the run.
// Without prototypes: isolated-vm reads an option it does not find through the prototype chain, so
// a program's getter on Object.prototype (`reference`, `arguments`, `timeout`...) would set options of
// the runtime's own crossings.
const CROSSING = {
  __proto__: null,
  arguments: { __proto__: null, copy: true },
  result: { __proto__: null, promise: true },
};
const SYNC_CROSSING = {
  __proto__: null,
  arguments: { __proto__: null, copy: true },
  result: { __proto__: null, copy: true },
};
const TAKE_CROSSING = { __proto__: null, result: { __proto__: null, copy: true } };

const JS_ERRORS: Record<string, new (message: string) => Error> = {
  __proto__: null,
  Error: ErrorCtor,
  TypeError: TypeErrorCtor,
  RangeError: RangeErrorCtor,
  SyntaxError: SyntaxErrorCtor,
  ReferenceError: ReferenceErrorCtor,
} as unknown as Record<string, new (message: string) => Error>;

/** The failure a thrown frame describes, as the type it had on the host. */
function rebuildError(name: unknown, message: unknown, isDOMException: unknown): Error {
  const text = `${message as string}`;
  const kind = `${name as string}`;
  if (isDOMException === true) return new DOMException(text, kind);
  const Ctor = JS_ERRORS[kind];
  if (Ctor !== undefined) return new Ctor(text);
  const error = new ErrorCtor(text);
  ObjectDefineProperty(error, 'name', { value: kind, writable: true, enumerable: false, configurable: true });
  return error;
}

/**
 * Performs one operation on the host: settles with the frame's value, or rejects with the error it
 * describes. Throws (for the caller to turn into a rejection) in global scope.
 */
export function performOnHost(operation: SubtleOperation, args: readonly unknown[]): Promise<unknown> {
  const now = operation === 'digest' && scope.global;
  if (!now) assertRequestScope();
  const reference = hostOf().performSubtleOperation;
  if (reference === undefined) throw new ErrorCtor('crypto.subtle is not connected to the host.');
  // Measured before anything is copied to the host (crossing.ts).
  const counted = admitCrossing(args);
  if (now) {
    let frame: unknown;
    try {
      frame = reference.sync([operation, args, true], SYNC_CROSSING);
    } finally {
      releaseCrossing(counted);
    }
    return new PromiseCtor((resolve, reject) => settle(frame, resolve, reject));
  }
  let crossing: Promise<unknown>;
  try {
    crossing = reference.async([operation, args], CROSSING);
  } catch (error) {
    releaseCrossing(counted);
    throw error;
  }
  return new PromiseCtor((resolve, reject) => {
    PromisePrototypeThen(
      crossing,
      (held) => {
        releaseCrossing(counted);
        let frame: unknown;
        try {
          frame = reference.sync([held], TAKE_CROSSING);
        } catch (error) {
          // An ArrayBuffer the allocator refuses is a RangeError; the memory limit ends the run.
          reject(error);
          return;
        }
        settle(frame, resolve, reject);
      },
      (failure) => {
        releaseCrossing(counted);
        reject(new ErrorCtor(`${ownValue(failure, 'message') ?? failure}`));
      },
    );
  });
}

function settle(frame: unknown, resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
  if (ownValue(frame, '0') === 'returned') resolve(ownValue(frame, '1'));
  else reject(rebuildError(ownValue(frame, '1'), ownValue(frame, '2'), ownValue(frame, '3')));
}
