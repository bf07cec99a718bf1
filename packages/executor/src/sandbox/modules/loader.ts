/**
 * The isolate's half of the import() fallback: __sandboxImport(referrer, specifier), which the
 * rewritten expressions call. It asks the host loader (the isolate's loader slot) to load the
 * module, then hands back the namespace the loader root stored inside the isolate, so the program
 * gets the real namespace object, live bindings and all.
 *
 * A module's top level may not wait on the host (adr/0002), so import() in global scope, at the top
 * level of a module while modules load, is refused with a message that says what to do instead.
 *
 * The host answers a load asynchronously with its frame as JSON text when that is short, or with
 * the number it holds the frame under, taken at once with a synchronous call (crossing/answers.ts): a long
 * frame copied in by isolated-vm's own task while the isolate is at its limit aborts the process.
 */
import { IN_FLIGHT_CALL_LIMIT, PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';
import type { DurableSession } from '../../durable/session.ts';
import { HeldAnswers, inlineOrHeld } from '../crossing/answers.ts';
import { LOADER_INSTALL_SOURCE } from '../generated/sandbox-sources.generated.ts';
import type { LoaderValues } from '../inside/loader.ts';
import type { IsolateHandle } from '../isolate.ts';
import { bindValues } from '../setup/bound-source.ts';

/** The refusal of an import() past the bound of loads in flight, which tool calls and fetch share. */
export const IMPORTS_IN_FLIGHT_MESSAGE = `Too many import() calls are in flight: one execution may have at most ${IN_FLIGHT_CALL_LIMIT} at once.`;

/** The refusal of an import() whose names, with those of the loads in flight, pass PAYLOAD_LIMIT. */
export const IMPORT_NAMES_MESSAGE = `The module names of the import() calls in flight would come to more than ${PAYLOAD_LIMIT} characters (PAYLOAD_LIMIT): import modules by shorter names.`;

export const GLOBAL_SCOPE_IMPORT_MESSAGE =
  'import() cannot run at the top level of a module while modules load: this engine cannot wait on the host there. Use a static import, or call import() inside the program.';

/**
 * The most characters of a failed module's message a load's frame carries; the rest is cut. The
 * host caches each module's outcome, and a program whose modules throw one shared long message
 * would otherwise park a copy per module on the host, escaped up to six times its length.
 */
export const LOAD_FAILURE_MESSAGE_LIMIT = 1024;

/** A failure message as a load's frame carries it: whole, or cut at the limit with a note. */
export function loadFailureMessage(message: string): string {
  if (message.length <= LOAD_FAILURE_MESSAGE_LIMIT) return message;
  return `${message.slice(0, LOAD_FAILURE_MESSAGE_LIMIT)}… (${message.length - LOAD_FAILURE_MESSAGE_LIMIT} more characters cut)`;
}

/**
 * The function behind the loader reference: a load (the referrer and the specifier in an array,
 * and the isolate's number for it) answers its frame or a number; a number alone takes it. In a
 * durable run each load goes through the run's session, which orders its answer among the run's
 * settlements, and the isolate tells it the sequence it observed the answer under ('', the load's
 * number, the sequence).
 */
export function loaderReference(
  handle: IsolateHandle,
  durable: () => DurableSession | undefined = () => undefined,
) {
  const held = new HeldAnswers<string>();
  return (first: readonly [string, string] | string | number, second?: number, third?: number) => {
    if (typeof first === 'number') return held.take(first);
    // Observed: '', the load's number, then the sequence.
    if (typeof first === 'string') return durable()?.loadObserved(second as number, third as number);
    // A load: the referrer and the specifier in one copied array (inside/loader.ts), and its number.
    const [referrer, specifier] = first;
    const number = second as number;
    const load = () =>
      handle.loader === undefined
        ? Promise.resolve(
            JSON.stringify(['thrown', 'Error', 'import() ran before the module map was linked.']),
          )
        : handle.loader(referrer, specifier);
    const session = durable();
    const frame = session === undefined ? load() : session.load(number, load);
    return frame.then((text) => inlineOrHeld(text, held));
  };
}

/** __sandboxImport, the isolate's half; the code is inside/loader.ts. */
export const LOADER_SOURCE = bindValues(
  LOADER_INSTALL_SOURCE,
  {
    globalScopeImport: GLOBAL_SCOPE_IMPORT_MESSAGE,
    inFlightLimit: IN_FLIGHT_CALL_LIMIT,
    tooManyImports: IMPORTS_IN_FLIGHT_MESSAGE,
    namesLimit: PAYLOAD_LIMIT,
    namesTooLong: IMPORT_NAMES_MESSAGE,
  } satisfies LoaderValues,
  ['hostLoad'],
);
