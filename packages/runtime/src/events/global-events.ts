/**
 * The global scope as an event target (https://html.spec.whatwg.org/multipage/webappapis.html#report-the-exception):
 * addEventListener, removeEventListener and dispatchEvent on the global object, and reportError.
 *
 * The listener list lives in an EventTarget made in the second install step, not in the snapshot:
 * the global object user code sees is created with the context, after the snapshot was made, so
 * state keyed on the snapshot's global would belong to an object no program ever touches.
 */
import { exposeMember } from '../global-scope.ts';
import { ReflectApply, TypeErrorCtor } from '../primordials.ts';
import { reportException, setReporter } from '../report-exception.ts';
import { GLOBAL_SCOPE, requireArguments } from '../webidl.ts';
import { ErrorEvent } from './error-event.ts';
import { eventSlots } from './event.ts';
import { dispatch, dispatchEvent as dispatchEventAt, EventTarget } from './event-target.ts';

let target: EventTarget | undefined;

function listeners(): EventTarget {
  if (target === undefined)
    throw new TypeErrorCtor('The global event target was used before the isolate was prepared.');
  return target;
}

/** Second step: the global scope's own listener list, and the report path through it. */
export function connectGlobalEvents(): void {
  target = new EventTarget();
  setReporter((error) => {
    const message = describe(error);
    const event = new ErrorEvent('error', { cancelable: true, message: `Uncaught ${message}`, error });
    eventSlots.setTrusted(event);
    dispatch(listeners(), event, globalThis);
    return event.defaultPrevented;
  });
}

function describe(error: unknown): string {
  try {
    return String(error);
  } catch {
    return 'exception';
  }
}

export function installGlobalEvents(): void {
  const global = globalThis as unknown as EventTarget;
  const { addEventListener: addListener, removeEventListener: removeListener } = EventTarget.prototype;
  // Each delegates to the listener list, so its argument checks and texts are EventTarget's.
  exposeMember('addEventListener', function addEventListener(...args: unknown[]) {
    ReflectApply(addListener, listeners(), args);
  });
  exposeMember('removeEventListener', function removeEventListener(...args: unknown[]) {
    ReflectApply(removeListener, listeners(), args);
  });
  exposeMember('dispatchEvent', function dispatchEvent(event: never) {
    return dispatchEventAt(listeners(), event, global);
  });
  exposeMember('reportError', function reportError(error: unknown) {
    // biome-ignore lint/complexity/noArguments: WebIDL counts arguments.
    requireArguments(arguments.length, 1, 'reportError', GLOBAL_SCOPE, ['Value']);
    reportException(error);
  });
}
