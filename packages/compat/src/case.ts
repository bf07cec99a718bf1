/**
 * What one differential case is: a program in the executor's request form, and what the suite
 * needs to run it the same way on both sides. Cases are data; src/executor and src/workerd turn
 * one into a run, src/compare turns the two outcomes into a verdict.
 */
import type { ModuleMap } from '@supolka/codemode-protocol';
import type { MaskName } from './compare/normalize.ts';
import type { ProviderName } from './tools/fake.ts';

/** The areas of issue 6, in the order the summary prints them. Each has one file under cases/. */
export const AREAS = [
  'url',
  'encoding',
  'base64',
  'structured-clone',
  'events',
  'abort',
  'headers',
  'request-response',
  'blob-formdata-streams',
  'fetch',
  'crypto-random',
  'crypto-subtle',
  'timers',
  'microtasks',
  'console',
  'errors',
  'modules',
  'global-scope',
  'handlers',
  'error-texts',
  'memory',
] as const;

export type Area = (typeof AREAS)[number];

/** One request a retained handler is invoked with, after the run granted it. */
export interface InvokeRequest {
  readonly method?: string;
  /** Absolute; `http://loopback.test` is not substituted here, the handler never fetches it. */
  readonly url: string;
  readonly headers?: readonly (readonly [string, string])[];
  /** UTF-8 text of the body, or none. */
  readonly body?: string;
}

export interface Case {
  /** Unique within its area; the case id is `<area>/<name>`. */
  readonly name: string;
  /**
   * The program: one async arrow, optionally preceded by static imports. `http://loopback.test`
   * stands for the suite's loopback server and is replaced by its real origin before the run.
   */
  readonly code: string;
  /** The module map, exactly as a caller would send it. */
  readonly modules?: ModuleMap;
  /** Providers of the deterministic fake (src/tools/fake.ts) the program may call. */
  readonly tools?: readonly ProviderName[];
  /** The run bound in ms on both sides (default CASE_TIMEOUT). */
  readonly timeout?: number;
  /** Asks to retain a fetch handler, then invokes it with each request in order. */
  readonly invoke?: readonly InvokeRequest[];
  /**
   * `inspect`: the executor's console writes as workerd's does (the request's consoleFormat), and
   * the workerd side keeps workerd's own console output instead of the protocol's rule
   * (docs/compat.md, "One case, both sides").
   */
  readonly consoleFormat?: 'inspect';
  /** Opt-in masks beyond the ones always applied (docs/compat.md, "Normalisation"). */
  readonly masks?: readonly MaskName[];
  /** Part of the quick subset (`pnpm test:quick`): at least two per area. */
  readonly quick?: boolean;
}

/** A case with its area, as the runner sees it. */
export interface AreaCase extends Case {
  readonly area: Area;
  readonly id: string;
}

/** The default run bound of a case: long enough for any honest case, short enough to fail fast. */
export const CASE_TIMEOUT = 5000;

/** The placeholder origin cases use for the loopback server. */
export const LOOPBACK_PLACEHOLDER = 'http://loopback.test';

/** Declares one area's corpus; the ids are derived here so a file cannot misspell its area. */
export function defineArea(area: Area, cases: readonly Case[]): readonly AreaCase[] {
  return cases.map((item) => ({ ...item, area, id: `${area}/${item.name}` }));
}
