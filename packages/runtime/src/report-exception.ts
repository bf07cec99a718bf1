/**
 * "Report an exception" (HTML, https://html.spec.whatwg.org/multipage/webappapis.html#report-the-exception):
 * what happens to an error nobody caught in a callback the runtime ran (a timer, a queueMicrotask
 * callback, reportError). An `error` event is fired at the global scope; when no listener canceled it, the
 * error ends at console.error, as a line the run's logs capture.
 */

/** Fires the error event and answers whether a listener canceled it; set in the second step. */
let fireErrorEvent: ((error: unknown) => boolean) | undefined;

export function setReporter(reporter: (error: unknown) => boolean): void {
  fireErrorEvent = reporter;
}

/**
 * Reports `error`. `toConsole` false leaves out the console line: an exception of a queueMicrotask
 * callback reaches error listeners, as in workerd, and is otherwise dropped, as the sandbox's
 * specification says (docs/sandbox.md).
 */
export function reportException(error: unknown, toConsole = true): void {
  let canceled = false;
  try {
    canceled = fireErrorEvent?.(error) ?? false;
  } catch {
    // A failing report must not become a second failure.
  }
  if (canceled || !toConsole) return;
  const console = (globalThis as { console?: { error?: (...values: unknown[]) => void } }).console;
  try {
    console?.error?.('Uncaught', error);
  } catch {
    // A console user code replaced or broke must not turn a report into a second failure.
  }
}
