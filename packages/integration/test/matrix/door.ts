/**
 * A door of the path matrix: one way a user reaches the executor. Each door is an adapter that
 * takes a behaviour (behaviours.ts) and answers a normalized outcome (outcome.ts), so a new
 * behaviour is a new row and never a new code path. A door says which needs it cannot meet, each
 * with the reason docs/path-matrix.md gives, and which are pending, with why.
 */
import type { ModuleMap } from '@supolka/codemode-protocol';
import type { ProviderName } from './catalogue.ts';
import type { Outcome } from './outcome.ts';

/** What a row needs of a door beyond running a program. */
export type Need =
  | 'spread-tools'
  | 'single-object'
  | 'prelude'
  | 'proxy-source'
  | 'proxied-fetch'
  | 'native-fetch'
  | 'loopback-opt-in'
  | 'modules'
  | 'stream-console'
  | 'bounded-console'
  | 'nesting'
  | 'cancel'
  | 'retain'
  | 'retained-host-calls'
  | 'wall-clock'
  | 'durable'
  | 'packages';

/** How a durable row's pause is resumed: an answer per pending call, and whether the token is tampered with first. */
export interface DurableRow {
  readonly answers: Readonly<
    Record<number, { readonly result: unknown } | { readonly error: string } | { readonly perform: true }>
  >;
  /** Flip a character of the token's ciphertext before the resume: it must be refused. */
  readonly tamper?: boolean;
}

export interface Behaviour {
  readonly name: string;
  /** Static import declarations, placed before the program in every form. */
  readonly imports?: string;
  /**
   * The program as statements. Doors that take an arrow wrap it, `async () => {\n...\n}`; doors that
   * take statements (the Code Mode form, the CLI, the MCP bridge) send it as it is. `__LOOPBACK__`
   * is replaced by the origin of the matrix's loopback HTTP server.
   */
  readonly body: string;
  /**
   * The body goes through every door as it is, never wrapped: the entry contract's rows, where a
   * door that takes an arrow meets code that is none and a door that takes statements runs it.
   */
  readonly unwrapped?: true;
  readonly providers?: readonly ProviderName[];
  readonly modules?: ModuleMap;
  /** disabled: `outbound: null`; proxied: catalogue.proxiedFetch; native: performed by the executor. */
  readonly outbound?: 'disabled' | 'proxied' | 'native';
  /** Native requests may reach loopback (the opt-in) unless this says refused. */
  readonly loopback?: 'refused';
  readonly timeout?: number;
  /** The wall-clock bound (queue, run and tool waits), set where the door's instance is built. */
  readonly wallClockLimit?: number;
  readonly memoryLimit?: number;
  /** The console's format (consoleFormat), on the request or where the door's instance is built. */
  readonly consoleFormat?: 'inspect';
  /** Abort the run once it reached math.hang. */
  readonly cancel?: boolean;
  /** Retain the handler and invoke it with GET http://handler.test + each path, then close it. */
  readonly invoke?: readonly string[];
  readonly needs?: readonly Need[];
  /**
   * A durable run (needs 'durable'): it must pause; the door resumes it with these answers, and
   * answers the resumed run's outcome, its logs after the paused run's, and `paused` saying the pause.
   */
  readonly durable?: DurableRow;
  /** What every door answers, after its mapping; a function when the text names the door's cause. */
  readonly expected: Outcome | ((door: DoorSpec) => Outcome);
  /** Reduces a large outcome to what the row compares (the same for expected and answered). */
  readonly view?: (outcome: Outcome) => unknown;
}

export interface OpenDoor {
  run(behaviour: Behaviour): Promise<Outcome>;
  close(): Promise<void>;
}

export interface DoorSpec {
  readonly name: string;
  /**
   * What the door takes a program as: an async arrow (the object form's entry contract), or
   * statements (the Code Mode form's). Positions in the program differ by the arrow's first line.
   */
  readonly takes: 'arrow' | 'statements';
  /** Needs this door cannot meet, each with its reason. */
  readonly lacks: Partial<Record<Need, string>>;
  /** Needs this door meets once a named change lands; its rows are skipped with the reason until then. */
  readonly pending?: Partial<Record<Need, string>>;
  /**
   * Outcome fields this door's answer does not carry, each with the reason docs/path-matrix.md
   * gives; dropped from the expectation.
   */
  readonly omits?: Partial<Record<keyof Outcome, string>>;
  /**
   * What a cancellation answers through this door: the reason its text names (cancelledMessage's
   * argument), and whether the lines the run wrote before it come back in the envelope.
   */
  readonly cancellation?: { readonly reason?: string; readonly keepsLogs: boolean };
  /** Rows of this door, when it runs only some of those it could (a slow door). */
  readonly picks?: readonly string[];
  /** Opens the door for the file; `rows` are the ones it will run, `__LOOPBACK__` already replaced. */
  open(rows: readonly Behaviour[]): Promise<OpenDoor>;
}

/** The program as an async arrow, for the doors that take one (an unwrapped row's body as it is). */
export function arrowCode(behaviour: Behaviour): string {
  if (behaviour.unwrapped) return statementCode(behaviour);
  const arrow = `async () => {\n${behaviour.body}\n}`;
  return behaviour.imports === undefined ? arrow : `${behaviour.imports}\n${arrow}`;
}

/** The program as statements after its imports, for the doors that take statements. */
export function statementCode(behaviour: Behaviour): string {
  return behaviour.imports === undefined ? behaviour.body : `${behaviour.imports}\n${behaviour.body}`;
}

/**
 * Where a line and column of a row's body (a wrapped row with no imports) is in the program the
 * door runs, `executor.js:LINE:COLUMN`: an arrow door's program has the arrow's first line before
 * the body.
 */
export function bodyPosition(door: DoorSpec, line: number, column: number): string {
  return `executor.js:${door.takes === 'arrow' ? line + 1 : line}:${column}`;
}

/** The URL a retained row's invocation requests. */
export function invocationUrl(path: string): string {
  return `http://handler.test${path}`;
}
