/**
 * "Report an exception" (HTML, https://html.spec.whatwg.org/multipage/webappapis.html#report-the-exception):
 * what happens to an error nobody caught in a callback the runtime ran (a timer, a microtask, an
 * event listener). It ends at console.error, as a line the run's logs capture.
 */

export function reportException(error: unknown): void {
  const console = (globalThis as { console?: { error?: (...values: unknown[]) => void } }).console;
  try {
    console?.error?.('Uncaught', error);
  } catch {
    // A console user code replaced or broke must not turn a report into a second failure.
  }
}
