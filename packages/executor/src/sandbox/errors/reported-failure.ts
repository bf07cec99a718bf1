/**
 * The failure the run support reports beside a failed envelope: the kind it observed, and the
 * error's name and stack as data. The run support signals it through a host reference the prepared
 * isolate holds (setup/prepared-isolate.ts), and the timeouts read it into the outcome (timeout.ts). It
 * lives apart from both so that the timeouts need nothing of how an isolate is prepared: through
 * this one type, timeout.ts and setup/prepared-isolate.ts imported each other by way of the snapshot.
 */
import {
  ERROR_JSON_LIMIT,
  ERROR_NAME_LIMIT,
  ERROR_TOOL_LIMIT,
  type ErrorKind,
  isErrorKind,
} from '@supolka/codemode-protocol/wire';
import { STACK_READ_LIMIT } from './stack.ts';

/**
 * A failure as the run support reports it beside the envelope: the observed kind, and the error's
 * name and stack as data; for a tool call's own failure the call's provider, tool and the frames
 * V8 recorded where the program made it; for a thrown object that is no Error, its JSON.
 */
export interface ReportedFailure {
  readonly kind: ErrorKind;
  readonly name: string | undefined;
  readonly stack: string | undefined;
  readonly provider?: string | undefined;
  readonly tool?: string | undefined;
  /** The stack text of the call's site, before the program's first frame is picked (errors/stack.ts). */
  readonly site?: string | undefined;
  readonly json?: string | undefined;
}

/** The failure as the signal reference received it: strings from the isolate, checked and bounded. */
export function readFailure(kind: unknown, ...values: unknown[]): ReportedFailure {
  const [name, stack, provider, tool, site, json] = values;
  const text = (value: unknown, limit: number) =>
    typeof value === 'string' ? value.slice(0, limit) : undefined;
  return {
    kind: isErrorKind(kind) ? kind : 'thrown',
    name: text(name, ERROR_NAME_LIMIT),
    stack: text(stack, STACK_READ_LIMIT),
    // A call is named only beside a kind that is a call's own failure.
    ...(kind === 'tool-failed' || kind === 'tool-not-found'
      ? {
          provider: text(provider, ERROR_TOOL_LIMIT),
          tool: text(tool, ERROR_TOOL_LIMIT),
          site: text(site, STACK_READ_LIMIT),
        }
      : {}),
    json: kind === 'thrown' ? text(json, ERROR_JSON_LIMIT) : undefined,
  };
}
