/**
 * The names tracing records under: the instrumentation scope, the span names and their
 * attributes. A leaf, so the spans (tracing-spans.ts, loaded only when a tracer provider is
 * registered) and the light half (tracing.ts) share them without importing each other.
 */

/** The instrumentation scope the spans are created under. */
export const TRACER_NAME = '@supolka/codemode-executor';

/** The span names and the attributes they carry. */
export const SPAN = {
  execute: 'codemode.execute',
  tool: 'codemode.tool',
  outbound: 'codemode.outbound',
} as const;
export const ATTRIBUTE = {
  /** Of an execution: `ok`, `error` (the program failed), or the fault code the executor ended it with. */
  outcome: 'codemode.outcome',
  /** Of an execution the executor ended: its code (TIMEOUT, CANCELLED, ...). */
  code: 'codemode.code',
  /** Of a tool call: `returned`, `error` (its envelope carried an error) or `thrown`. */
  callOutcome: 'codemode.call.outcome',
  provider: 'codemode.tool.provider',
  tool: 'codemode.tool.name',
  method: 'http.request.method',
  status: 'http.response.status_code',
} as const;
