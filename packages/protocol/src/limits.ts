/**
 * Every bound the executor enforces, each defined once. docs/protocol.md says why each exists;
 * change one only with a measured reason, in the chapter that owns it.
 */

/**
 * Tool calls one execution may have in flight at once, and fetch requests apart from them: each
 * holds host memory the isolate's limit cannot see. The sandbox refuses a call past it; the pool's
 * parent ends a child that sends more than both together, since its sandbox never would.
 */
export const IN_FLIGHT_CALL_LIMIT = 256;

/**
 * Characters a message id or an execution id may hold. A legitimate execution id is at most 101
 * (a 64-character server instance, a dot, a UUID); error texts name ids, so an unbounded one would
 * make a fault or a log line as large as the message that carried it.
 */
export const ID_LIMIT = 128;

/**
 * Characters of the reason a pool child gives when it ends a retained execution on its own
 * (`handlesClosed`): the pool keeps up to a thousand of them to answer invokes with, so a child's
 * reason of megabytes would be parked in the parent, the caller's process, and read back to its
 * callers. The child's own text (timerWorkClosedMessage) is under 300.
 */
export const CLOSED_REASON_LIMIT = 1024;

/** Bytes of JSON text one message may carry on any transport (Workers RPC's ceiling). */
export const PAYLOAD_LIMIT = 32 * 1024 * 1024;

/**
 * Characters a durable run's token may hold (docs/durable.md, "Limits"). A resume sends the token
 * and the request in one message of at most PAYLOAD_LIMIT; half of it for the token leaves the
 * request the other half. The executor seals no larger token (its MAX_TOKEN_SIZE is this).
 */
export const DURABLE_TOKEN_LIMIT = PAYLOAD_LIMIT / 2;

/** Characters of the reason a tool gives when it pauses a durable run; a longer one is cut where it is given. */
export const PAUSE_REASON_LIMIT = 1024;

/**
 * JSON values (objects, arrays, strings, numbers, true, false, null; keys are not values) one
 * message may hold on any transport, counted by scanMessage before the text is parsed and checked by
 * decodeMessage and encodeMessage. PAYLOAD_LIMIT bounds bytes, not what they decode to: 32 MiB of
 * `[{},{},...]` is 11 million objects, 749 MB of V8 heap. At this bound the costliest shape
 * measured (objects of one distinct key each, through the codec's reviver) decodes to about
 * 170 MB; a million values is a JSON document of roughly 8 MB of dense records.
 */
export const VALUE_LIMIT = 1024 * 1024;

/**
 * Characters (UTF-16 code units) a request's `code` may hold. Everything the host does with the
 * code before the isolate runs it (the nesting scan, separating the imports, erasing types, building
 * the entry) runs outside every isolate limit, so its input is bounded well under PAYLOAD_LIMIT: no
 * model writes a megabyte of program.
 */
export const CODE_LIMIT = 1024 * 1024;

/**
 * Characters one module's source (a bare string, `js` or `cjs`) may hold. Larger than CODE_LIMIT,
 * since a bundled library of several megabytes is legitimate.
 */
export const MODULE_SOURCE_LIMIT = 8 * 1024 * 1024;

/**
 * How deep brackets ((, [, {, and ${ in a template) may nest in the code and in each module source
 * before a host-side parser sees them. The weakest host parser measured (es-module-lexer's template
 * stack) fails past 512 levels, acorn past about 540, amaro past about 900 (docs/threat-model.md);
 * code people write rarely passes 30.
 */
export const NESTING_LIMIT = 128;

/** The rule CODE_LIMIT states, as the request schema and Sandbox.execute both word it. */
export const CODE_LIMIT_RULE = `must be at most ${CODE_LIMIT} characters long (CODE_LIMIT)`;

/** The rule MODULE_SOURCE_LIMIT states, as the request schema and Sandbox.execute both word it. */
export const MODULE_SOURCE_LIMIT_RULE = `must be at most ${MODULE_SOURCE_LIMIT} characters long (MODULE_SOURCE_LIMIT)`;

/** The rule a module map follows, as the request schema and IsolateExecutor's `modules` option word it. */
export const MODULE_MAP_RULE = 'must be an object mapping module names to modules';

/** The rule one module of a map follows, worded as MODULE_MAP_RULE is. */
export const MODULE_ENTRY_RULE =
  'must be module source text or an object with one of js, cjs, json, text, data';

/** Charged cost of console output one run may capture before capture stops. */
export const CONSOLE_CAPTURE_LIMIT = 1024 * 1024;

/**
 * The cost charged for the shape of one log line on the wire: the punctuation of
 * `{"level":"error","text":}` around the escaped text. Charging it keeps an empty line from being free.
 */
export const LINE_COST = '{"level":"error","text":}'.length;

/**
 * Entries a list or map in a message may hold. Bounded so a hostile peer cannot make validation
 * report one issue per element (a 32 MiB list of wrong entries is 16 million of them); each bound is
 * far past any real request.
 */
export const PROVIDER_LIMIT = 1024;
export const MODULE_LIMIT = 10_000;
export const HEADER_LIMIT = 4096;
/** Lines a result's logs can hold: every line costs at least LINE_COST, plus the truncation notice. */
export const LOG_LINE_LIMIT = Math.ceil(CONSOLE_CAPTURE_LIMIT / LINE_COST) + 1;

/** CryptoKeys one execution may create: each lives in host memory the isolate's limit cannot see. */
export const KEY_LIMIT = 1000;

/** Timers one execution may have pending at once: each holds a host timer the isolate's limit cannot see. */
export const TIMER_LIMIT = 10_000;

/** The widest delay a 32-bit timer accepts; longer delays are clamped to it. */
export const MAX_DELAY = 2_147_483_647;

/** How often a paused run clock rechecks its bound, and so the most an expiry can fire late inside a host wait. */
export const PAUSED_RECHECK = 50;

/** Allowed disagreement between the engine's own timer thread and the host clock. */
export const CLOCK_TOLERANCE = 50;

/** After this long an engine probe that has not answered counts as missing. */
export const ENGINE_PROBE_TIMEOUT = 5_000;

/** Default run bound in milliseconds (Cloudflare's executor uses the same). */
export const DEFAULT_TIMEOUT = 60_000;

/** Default isolate memory limit in megabytes: the Workers limit models are used to. */
export const DEFAULT_MEMORY_LIMIT = 128;

/** The smallest memory limit isolated-vm accepts, in megabytes. */
export const MIN_MEMORY_LIMIT = 8;

/** The largest memory limit a request may ask for, in megabytes. */
export const MAX_MEMORY_LIMIT = 4096;

/** How long a retained execution may sit without an invocation before it is closed. */
export const DEFAULT_HANDLES_IDLE_TIMEOUT = 60_000;

/**
 * How a run's console formats its arguments (the request's `consoleFormat`): `string`, the
 * protocol's rule, String of each argument joined by single spaces; `inspect`, as workerd's console.
 */
export const CONSOLE_FORMATS = ['string', 'inspect'] as const;

/** The console levels a log line carries. Here, not beside LogLineSchema, so zod-free code reads them. */
export const LOG_LEVELS = ['log', 'warn', 'error'] as const;
