/**
 * The sandbox's machinery for one run, as code inside the isolate: the provider namespaces, and
 * __startRun, which the entry calls with the user arrow. It leaves global scope, races the arrow
 * against the run clock's expiry, and reports the outcome through the __resultJson accessor.
 *
 * RUN_SUPPORT_SOURCE lives in the startup snapshot (setup/sandbox-source.ts) and is called once per
 * isolate while the isolate is prepared, before any user code exists; the entry imports what it
 * returns through the small internal module below. That matters because user modules evaluate
 * before the entry's body: everything the envelope depends on (JSON, Promise, the codec) is bound
 * at a time no program could have replaced it yet.
 */
import {
  DISPATCH_OUTSIDE_ENVELOPE_MESSAGE,
  ERROR_JSON_LIMIT,
  ERROR_NAME_LIMIT,
  ERROR_TOOL_LIMIT,
  NOTE_LIMIT,
  PAYLOAD_LIMIT,
} from '@supolka/codemode-protocol/wire';
import { STACK_READ_LIMIT } from '../errors/stack.ts';
import { INTERNAL_MODULE_TEXT, RUN_SUPPORT_INSTALL_SOURCE } from '../generated/sandbox-sources.generated.ts';
import type { RunSupportValues } from '../inside/run-support.ts';
import { LOST_VALUE_TEXTS, NOTE_PATH_LIMIT, NOTE_WALK_DEPTH, NOTE_WALK_VALUES } from '../lost-values.ts';
import { bindValues } from '../setup/bound-source.ts';

/** A retained handler's answer (its response's texts, or the text it threw) past PAYLOAD_LIMIT, refused in the isolate. */
export const HANDLER_ANSWER_TOO_LARGE_MESSAGE = `The handler's answer would hand the host more than ${PAYLOAD_LIMIT} characters (PAYLOAD_LIMIT) of status text, headers or thrown message: answer with less.`;

/**
 * The specifier the entry imports this module by. The resolver serves it to the entry and loader
 * roots only; a map key of the same name stays reachable from every other module.
 */
export const INTERNAL_SPECIFIER = 'codemode:sandbox';

/** The file name the internal module compiles under: its frames are never the program's (errors/stack.ts). */
export const INTERNAL_FILENAME = 'codemode-sandbox.js';

/** The internal module: what RUN_SUPPORT_SOURCE returned for this isolate, as bindings (inside/internal-module.ts). */
export const INTERNAL_MODULE_SOURCE = INTERNAL_MODULE_TEXT;

/** The run support; the code is inside/run-support.ts. */
export const RUN_SUPPORT_SOURCE = bindValues(
  RUN_SUPPORT_INSTALL_SOURCE,
  {
    outsideEnvelope: DISPATCH_OUTSIDE_ENVELOPE_MESSAGE,
    nameLimit: ERROR_NAME_LIMIT,
    stackReadLimit: STACK_READ_LIMIT,
    toolLimit: ERROR_TOOL_LIMIT,
    jsonLimit: ERROR_JSON_LIMIT,
    noteLimit: NOTE_LIMIT,
    walkValues: NOTE_WALK_VALUES,
    walkDepth: NOTE_WALK_DEPTH,
    pathLimit: NOTE_PATH_LIMIT,
    lostFunctionDropped: LOST_VALUE_TEXTS.functionDropped,
    lostFunctionNull: LOST_VALUE_TEXTS.functionNull,
    lostSymbolDropped: LOST_VALUE_TEXTS.symbolDropped,
    lostSymbolNull: LOST_VALUE_TEXTS.symbolNull,
    lostUndefinedDropped: LOST_VALUE_TEXTS.undefinedDropped,
    lostUndefinedNull: LOST_VALUE_TEXTS.undefinedNull,
    lostNan: LOST_VALUE_TEXTS.nan,
    lostInfinity: LOST_VALUE_TEXTS.infinity,
    lostNegativeInfinity: LOST_VALUE_TEXTS.negativeInfinity,
    lostNegativeZero: LOST_VALUE_TEXTS.negativeZero,
    lostMap: LOST_VALUE_TEXTS.map,
    lostSet: LOST_VALUE_TEXTS.set,
    lostPromise: LOST_VALUE_TEXTS.promise,
    lostError: LOST_VALUE_TEXTS.error,
    lostEmpty: LOST_VALUE_TEXTS.empty,
    payloadLimit: PAYLOAD_LIMIT,
    answerTooLarge: HANDLER_ANSWER_TOO_LARGE_MESSAGE,
  } satisfies RunSupportValues,
  ['internals', 'signal'],
);
