/**
 * The server's structured log: one JSON object a line, through pino, each with an `event` naming
 * what happened (docs/server.md, "Logs"). What a line holds is decided here and nowhere else, so it
 * never carries a program's text, a token, a tool's arguments or results, or a request's body:
 * only ids the server or the client chose (an id is at most 128 characters), numbers, codes, the
 * peer's address, and the names of the tools and handles a program called, cut to ECHO_LIMIT
 * characters (the program chooses them, and a name may be megabytes).
 */
import { ECHO_LIMIT, echo } from '@supolka/codemode-protocol/wire';
import { type DestinationStream, type Logger, type LevelWithSilent as LogLevel, pino } from 'pino';
import type { CallOutcome } from './metrics.ts';

export type { Logger, LogLevel };

/**
 * Bytes of log lines the server's own logger holds while stderr is slow to take them; past it,
 * lines are dropped. A reader that stops reading stderr (a full pipe) must not make every failed
 * connection attempt grow the server's memory.
 */
export const LOG_BUFFER_LIMIT = 16 * 1024 * 1024;

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Why an upgrade was answered with an HTTP status instead of a connection. */
export type UpgradeRefusal = 'draining' | 'origin' | 'maxConnections' | 'maxUnauthenticatedConnections';

/** Why a connection failed to authenticate. */
export type AuthenticationFailure = 'wrong token in the upgrade' | 'wrong token in the hello' | 'no token';

/** Why the server dropped a socket without a closing handshake. */
export type DropCause = 'ping unanswered' | 'congested' | 'opening bytes' | 'close unanswered';

/**
 * The logger the server writes to. A caller's own logger is used as it is (at `level` when one is
 * given); a level alone gets a logger of the server's own on `destination` (stderr unless told);
 * neither gets a silent one, so a library user hears nothing it did not ask for.
 */
export function serverLogger(
  logger: Logger | undefined,
  level: LogLevel | undefined,
  destination?: DestinationStream,
): Logger {
  if (logger !== undefined) return level === undefined ? logger : logger.child({}, { level });
  // A stream of its own: pino's default would open one on stdout for a logger that never writes.
  if (level === undefined || level === 'silent') return pino({ level: 'silent' }, { write: () => {} });
  return pino(
    {
      level,
      base: { name: 'codemode-executor' },
      // The level's name, not pino's number: a reader of the line need not know the table.
      formatters: { level: (label) => ({ level: label }) },
    },
    // Made only here: a silent server, or one writing to the caller's logger, opens no stream.
    destination ?? pino.destination({ dest: 2, sync: false, maxLength: LOG_BUFFER_LIMIT }),
  );
}

/** The log of one connection: every line names it by a number the server counts from 1. */
export class ConnectionLog {
  readonly #log: Logger;
  readonly #opened = performance.now();

  constructor(server: Logger, connection: number, remote: string | undefined) {
    this.#log = server.child({ connection, ...(remote !== undefined ? { remote } : {}) });
  }

  opened(authenticated: boolean): void {
    this.#log.info({ event: 'connection opened', authenticated }, 'connection opened');
  }

  helloAccepted(): void {
    this.#log.debug({ event: 'hello accepted' }, 'hello accepted');
  }

  authenticationFailed(cause: AuthenticationFailure): void {
    this.#log.warn({ event: 'authentication failed', cause }, 'authentication failed');
  }

  dropped(cause: DropCause): void {
    this.#log.warn({ event: 'connection dropped', cause }, 'connection dropped');
  }

  closed(code: number): void {
    const durationMs = Math.round(performance.now() - this.#opened);
    this.#log.info({ event: 'connection closed', code, durationMs }, 'connection closed');
  }

  /** `id` is the client's name for the execution; `outcome` is ok, error, or the fault code. */
  execution(id: string, outcome: string, durationMs: number, executionId: string | undefined): void {
    this.#log.info(
      {
        event: 'execution',
        id,
        outcome,
        durationMs: Math.round(durationMs),
        ...(executionId !== undefined ? { executionId } : {}),
      },
      'execution',
    );
  }

  /**
   * One tool call of execution `id` settled: the provider and tool it named and how it ended,
   * never its arguments or its result. Debug: a program may make thousands. `call` is the number
   * the call was sent under; a call made once the execution had ended was sent under none.
   */
  toolCall(
    id: string,
    call: number | undefined,
    provider: string,
    tool: string,
    outcome: CallOutcome,
    durationMs: number,
  ): void {
    this.#log.debug(
      {
        event: 'tool call',
        id,
        ...(call !== undefined ? { call } : {}),
        provider: echo(provider, ECHO_LIMIT),
        tool: echo(tool, ECHO_LIMIT),
        outcome,
        durationMs: Math.round(durationMs),
      },
      'tool call',
    );
  }

  /**
   * An invoke answered: `id` is the client's, `executionId` the executor's (as the `execution`
   * line names it); `outcome` is ok, or the fault code it was answered with; `status` is the
   * handler's response status, when there was one.
   */
  invocation(
    id: string,
    executionId: string,
    handle: string,
    outcome: string,
    durationMs: number,
    status: number | undefined,
  ): void {
    this.#log.info(
      {
        event: 'invocation',
        id,
        executionId,
        handle: echo(handle, ECHO_LIMIT),
        outcome,
        ...(status !== undefined ? { status } : {}),
        durationMs: Math.round(durationMs),
      },
      'invocation',
    );
  }

  /** A closeHandles answered: ok (acknowledged), or the fault code it was answered with. */
  handlesClosed(id: string, executionId: string, outcome: string, durationMs: number): void {
    this.#log.info(
      { event: 'close handles', id, executionId, outcome, durationMs: Math.round(durationMs) },
      'close handles',
    );
  }
}

/** An upgrade refused at the HTTP level: no connection exists to name. */
export function logUpgradeRefused(
  log: Logger,
  cause: UpgradeRefusal,
  status: number,
  remote: string | undefined,
): void {
  log.warn(
    { event: 'upgrade refused', cause, status, ...(remote !== undefined ? { remote } : {}) },
    'upgrade refused',
  );
}
