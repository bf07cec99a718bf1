/**
 * The execute request: what a caller may ask the executor to run (docs/protocol.md, "The execute
 * request").
 */
import { z } from 'zod';
import {
  CODE_LIMIT,
  CODE_LIMIT_RULE,
  CONSOLE_FORMATS,
  MAX_MEMORY_LIMIT,
  MIN_MEMORY_LIMIT,
  MODULE_ENTRY_RULE,
  MODULE_LIMIT,
  MODULE_MAP_RULE,
  MODULE_SOURCE_LIMIT,
  MODULE_SOURCE_LIMIT_RULE,
  PROVIDER_LIMIT,
} from '../limits.ts';
import { boundedRecord, MillisecondsSchema } from './common.ts';

/**
 * One provider as it crosses the wire: its namespace name and how its proxy is built.
 * The functions that serve it stay with the caller.
 */
export const ProviderDescriptorSchema = z.strictObject({
  /** The namespace user code calls tools through: `name.tool(...)`. validateProviders checks it. */
  name: z.string({ error: 'must be a string' }),
  /** `false` selects the single-object convention; absent or `true`, the spread convention. */
  positionalArgs: z.boolean({ error: 'must be a boolean' }).optional(),
  /** Source run after every proxy is declared, so it can reach its own namespace. */
  prelude: z.string({ error: 'must be a string' }).optional(),
  /** Replaces the generated proxy declaration verbatim. */
  proxySource: z.string({ error: 'must be a string' }).optional(),
});
export type ProviderDescriptor = z.infer<typeof ProviderDescriptorSchema>;

/** Module source a host-side parser reads: bounded by MODULE_SOURCE_LIMIT. */
const ModuleSourceSchema = z.string().max(MODULE_SOURCE_LIMIT, { error: MODULE_SOURCE_LIMIT_RULE });

/**
 * One module of the map. A bare string is ES module source. Otherwise the first kind present of
 * js, cjs, json, text, data decides what is compiled; an object with none of them reaches the
 * sandbox, which answers UnsupportedModuleKindError naming the module.
 */
export const ModuleEntrySchema = z.union(
  [
    ModuleSourceSchema,
    z.strictObject({
      js: z
        .string({ error: 'must be ES module source text' })
        .max(MODULE_SOURCE_LIMIT, { error: MODULE_SOURCE_LIMIT_RULE })
        .optional(),
      cjs: z
        .string({ error: 'must be CommonJS source text' })
        .max(MODULE_SOURCE_LIMIT, { error: MODULE_SOURCE_LIMIT_RULE })
        .optional(),
      json: z.unknown().optional(),
      text: z.string({ error: 'must be a string' }).optional(),
      data: z.string({ error: 'must be base64 text' }).optional(),
    }),
  ],
  { error: MODULE_ENTRY_RULE },
);
export type ModuleEntry = z.infer<typeof ModuleEntrySchema>;

export const ModuleMapSchema = boundedRecord(ModuleEntrySchema, MODULE_LIMIT, MODULE_MAP_RULE);
export type ModuleMap = z.infer<typeof ModuleMapSchema>;

/**
 * How the program's fetch reaches the network. `disabled` rejects every request, `proxied` sends
 * each one to the caller, `native` has the executor perform it. Absent, the executor's
 * configured default applies, and that default is `disabled`.
 */
export const OutboundModeSchema = z.enum(['disabled', 'proxied', 'native'], {
  error: "must be one of 'disabled', 'proxied', 'native'",
});
export type OutboundMode = z.infer<typeof OutboundModeSchema>;

export const ConsoleFormatSchema = z.enum(CONSOLE_FORMATS, { error: "must be one of 'string', 'inspect'" });
export type ConsoleFormat = z.infer<typeof ConsoleFormatSchema>;

export const ExecuteRequestSchema = z.strictObject({
  /** An async arrow expression, optionally preceded by static import declarations. */
  code: z.string({ error: 'must be a string of source code' }).max(CODE_LIMIT, { error: CODE_LIMIT_RULE }),
  modules: ModuleMapSchema.optional(),
  providers: z
    .array(ProviderDescriptorSchema, { error: 'must be a list of provider descriptors' })
    .max(PROVIDER_LIMIT, { error: `must hold at most ${PROVIDER_LIMIT} providers` })
    .optional(),
  /** The run bound in milliseconds, on the run clock (time spent waiting on the caller does not count). */
  timeout: MillisecondsSchema.optional(),
  /** The isolate's memory limit in megabytes. */
  memoryLimit: z
    .number({ error: 'must be a number of megabytes' })
    .int({ error: 'must be a whole number of megabytes' })
    .min(MIN_MEMORY_LIMIT, { error: `must be at least ${MIN_MEMORY_LIMIT} MB` })
    .max(MAX_MEMORY_LIMIT, { error: `must be at most ${MAX_MEMORY_LIMIT} MB` })
    .optional(),
  outbound: OutboundModeSchema.optional(),
  /** Keep the isolate alive when the program resolves to a fetch handler. */
  retainHandles: z.boolean({ error: 'must be a boolean' }).optional(),
  /** Count time spent waiting on the caller's tools against the run bound too. */
  countHostWaits: z.boolean({ error: 'must be a boolean' }).optional(),
  /**
   * Erase TypeScript types from the code and from `.ts`, `.mts` and `.cts` modules before running
   * them. Absent means true; `false` runs the sources exactly as written.
   */
  typescript: z.boolean({ error: 'must be a boolean' }).optional(),
  /**
   * How console.log, warn and error turn their arguments into a line. Absent means `string`: String
   * of each argument, joined by single spaces. `inspect` formats as workerd's console does (Node's
   * util.format: objects inspected, format specifiers applied). Version 3.
   */
  consoleFormat: ConsoleFormatSchema.optional(),
  /**
   * Journal the run so a tool can pause it: the envelope then says it paused and carries a token
   * that a resume finishes the run from (docs/durable.md). Needs an executor configured with a
   * durable key ring; refused beside `retainHandles`. Version 3.
   */
  durable: z.boolean({ error: 'must be a boolean' }).optional(),
});
export type ExecuteRequest = z.infer<typeof ExecuteRequestSchema>;
