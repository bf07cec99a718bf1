/**
 * Schemas loaded on first need, the way a process that must stay small at rest reaches them: a
 * pool child, the executor in its caller's process, the server (each decides its common messages
 * with hot checks, hot-messages.ts, and loads zod only for what those leave undecided). One import()
 * at a time, kept once it succeeded and tried again by the next caller once it failed; a message
 * waiting on a load that failed is refused as this side's fault, never thrown out of its channel.
 *
 * Loaded with import(), never require(): a require() of a module another import() is loading
 * throws (ERR_REQUIRE_ESM_RACE_CONDITION).
 */
import type { FaultCode } from './errors.ts';

/** What is loaded, once it is, and the load, started by the first call. */
export interface OnDemand<T> {
  readonly loaded: T | undefined;
  load(): Promise<T>;
}

export function onDemand<T>(importer: () => Promise<T>): OnDemand<T> {
  let loading: Promise<T> | undefined;
  let loaded: T | undefined;
  return {
    get loaded() {
      return loaded;
    },
    load() {
      loading ??= importer().then(
        (value) => {
          loaded = value;
          return value;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}

/** A message refused because the schemas that decide it did not load. */
export interface SchemasFault {
  readonly ok: false;
  readonly fault: { readonly code: FaultCode; readonly message: string };
}

/**
 * `decide` with what `schemas` loads: in this call once it is loaded, so the order of calls is kept
 * from then on; after the load otherwise, and a load that failed is the message's fault.
 */
export function decideOnDemand<T, D>(
  schemas: OnDemand<T>,
  decide: (loaded: T) => D,
): D | Promise<D | SchemasFault> {
  if (schemas.loaded !== undefined) return decide(schemas.loaded);
  return schemas.load().then(
    decide,
    (error: unknown): SchemasFault => ({
      ok: false,
      fault: { code: 'INTERNAL', message: `The message schemas did not load: ${String(error)}` },
    }),
  );
}
