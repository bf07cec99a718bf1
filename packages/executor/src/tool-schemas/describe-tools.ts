/**
 * describeTools: a library caller's tools, each with a description and an input (and optional
 * output) schema, made into what a code tool needs: TypeScript declarations for the model, a tool
 * description holding them, and providers whose functions check each call's argument against its
 * input schema before the tool runs. It is the MCP bridge's way of telling a model about tools
 * (declarations.ts, safe-text.ts, schema-check.ts, shared with it) offered to every caller of
 * IsolateExecutor, and of ExecutorClient in Node (docs/codemode.md, "Describing tools to the model").
 *
 * The bounds are the bridge's: at most TOOL_LIMIT tools per namespace and NAME_LIMIT characters per
 * name, refused when the set is made; each schema's declaration bounded in depth, nodes and length,
 * each description cut and made safe (declarations.ts). A check runs in the checker's thread with
 * VALIDATION_TIMEOUT (schema-check.ts): a schema's `pattern` is the caller's and the argument the
 * program's, and a backtracking pattern must cost one call a bounded time, never the caller's event
 * loop. A refused call throws in the program with an error naming the argument and the rule.
 */

import type { ToolFunction } from '@supolka/codemode-protocol/wire';
import { validateProviders } from '@supolka/codemode-protocol/wire';
import { sanitizeToolName } from '../codemode/sanitize.ts';
import type { AllowedPackage } from '../packages/bundle.ts';
import { NAME_LIMIT, namespaceDeclaration, TOOL_LIMIT, type ToolShape } from './declarations.ts';
import { type JsonSchemaObject, jsonSchemaOf } from './json-schema-of.ts';
import { cutText } from './safe-text.ts';
import { SchemaCheck, type SchemaProblem, type SchemaVerdict } from './schema-check.ts';
import {
  ARGUMENT_ERROR_LIMIT,
  argumentCheckTimeoutMessage,
  argumentRefusedMessage,
  CODE_TOOL_INTRO,
  NAMESPACES_MESSAGE,
  notToolMessage,
  notToolsMessage,
  PROBLEMS_LISTED,
  packagesLine,
  sameNameMessage,
  toolNameTooLongMessage,
  tooManyToolsMessage,
  unreadableInputSchemaMessage,
} from './texts.ts';

export interface ToolDefinition {
  /** What the tool does, for the model: cut at DESCRIPTION_LIMIT and made safe in the declarations. */
  readonly description?: string;
  /**
   * The argument's schema: a JSON Schema object, an AI SDK schema, a Standard JSON Schema (zod 4)
   * or a schema with a toJSONSchema() method. Without one the argument is declared as
   * `Record<string, unknown>` and not checked.
   */
  readonly inputSchema?: unknown;
  /** The result's schema, in the same forms; it is declared, not checked. Without one: `unknown`. */
  readonly outputSchema?: unknown;
  /** Called with the program's one argument once it holds against inputSchema (`{}` when it passed none). */
  readonly execute: ToolFunction;
}

export interface ToolNamespace {
  /** The name the program calls the tools under: `name.tool(...)`, a JavaScript identifier. */
  readonly name: string;
  /** Said of the namespace above its declaration. */
  readonly description?: string;
  /** The tools by name; the program calls each under its name made an identifier (`get-stock`: `get_stock`). */
  readonly tools: Readonly<Record<string, ToolDefinition>>;
}

/** A provider for either form of IsolateExecutor.execute, and for ExecutorClient. */
export interface DescribedProvider {
  readonly name: string;
  readonly fns: Readonly<Record<string, ToolFunction>>;
}

export interface DescribedTools {
  /** Every namespace as `declare const name: { tool(args: {...}): Promise<...>; ... };`. */
  readonly declarations: string;
  /** A code tool's description for the model: what to write, then the declarations in a ```ts block. */
  readonly description: string;
  /** The namespaces as providers, each function checking its argument before the tool runs. */
  readonly providers: readonly DescribedProvider[];
  /** Ends the thread arguments are checked in; it also ends itself when idle, and a later call starts it again. */
  close(): void;
}

export interface DescribeToolsOptions {
  /**
   * The packages the program may import, with their versions (IsolateExecutor's `packages()`):
   * the description lists them (docs/packages.md). None by default.
   */
  readonly packages?: readonly AllowedPackage[];
}

/**
 * Throws InvalidProviderError for a namespace name the program could not call, and TypeError for a
 * tool set it cannot describe (naming the tool and what is wrong).
 */
export function describeTools(
  namespaces: readonly ToolNamespace[],
  options: DescribeToolsOptions = {},
): DescribedTools {
  if (!Array.isArray(namespaces) || !namespaces.every((item) => typeof item === 'object' && item !== null)) {
    throw new TypeError(NAMESPACES_MESSAGE);
  }
  validateProviders(namespaces);
  const check = new SchemaCheck();
  const declared: string[] = [];
  const providers = namespaces.map((namespace): DescribedProvider => {
    const { shapes, fns } = describeNamespace(namespace, check);
    declared.push(namespaceDeclaration(namespace.name, shapes, namespace.description));
    return { name: namespace.name, fns };
  });
  const declarations = declared.join('\n\n');
  return {
    declarations,
    description: `${CODE_TOOL_INTRO}${packagesParagraph(options.packages ?? [])}\n\n\`\`\`ts\n${declarations}\n\`\`\``,
    providers,
    close: () => check.close(),
  };
}

/** The packages line as its own paragraph, or nothing when no package is allowed. */
function packagesParagraph(packages: readonly AllowedPackage[]): string {
  const line = packagesLine(packages);
  return line === '' ? '' : `\n\n${line}`;
}

function describeNamespace(
  { name: namespace, tools }: ToolNamespace,
  check: SchemaCheck,
): { shapes: ToolShape[]; fns: Record<string, ToolFunction> } {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw new TypeError(notToolsMessage(namespace));
  }
  const entries = Object.entries(tools);
  if (entries.length > TOOL_LIMIT) throw new TypeError(tooManyToolsMessage(namespace, TOOL_LIMIT));
  const shapes: ToolShape[] = [];
  // No prototype: a tool named __proto__ is a key like any other.
  const fns: Record<string, ToolFunction> = Object.create(null);
  const rawNames = new Map<string, string>();
  for (const [raw, tool] of entries) {
    if (raw.length > NAME_LIMIT)
      throw new TypeError(toolNameTooLongMessage(namespace, raw.length, NAME_LIMIT));
    const name = sanitizeToolName(raw);
    const earlier = rawNames.get(name);
    if (earlier !== undefined) throw new TypeError(sameNameMessage(namespace, earlier, raw, name));
    rawNames.set(name, raw);
    const call = `${namespace}.${name}`;
    if (typeof tool !== 'object' || tool === null || typeof tool.execute !== 'function') {
      throw new TypeError(notToolMessage(call));
    }
    const inputSchema = jsonSchemaOf(tool.inputSchema, 'input', `${call}'s inputSchema`);
    const outputSchema = jsonSchemaOf(tool.outputSchema, 'output', `${call}'s outputSchema`);
    shapes.push({ name, description: tool.description, inputSchema, outputSchema });
    fns[name] = checkedTool(call, tool.execute, inputSchema, check);
  }
  return { shapes, fns };
}

/**
 * The tool's function as the program calls it: the first argument (`{}` when there is none, as the
 * MCP bridge sends a call without one), checked, then handed to `execute` alone.
 */
function checkedTool(
  call: string,
  execute: ToolFunction,
  schema: JsonSchemaObject | undefined,
  check: SchemaCheck,
): ToolFunction {
  return async (...args: unknown[]) => {
    const argument = args[0] === undefined ? {} : args[0];
    if (schema !== undefined) {
      const refusal = refusalOf(call, await check.check(schema, argument));
      if (refusal !== undefined) throw new Error(refusal);
    }
    return (execute as (argument: unknown) => unknown)(argument);
  };
}

/** The error a refused call throws in the program, or undefined when the argument holds. */
export function refusalOf(call: string, verdict: SchemaVerdict): string | undefined {
  switch (verdict.kind) {
    case 'holds':
      return undefined;
    case 'timeout':
      return argumentCheckTimeoutMessage(call, verdict.timeout);
    case 'unreadable':
      return cutText(
        unreadableInputSchemaMessage(call, verdict.reason),
        ARGUMENT_ERROR_LIMIT,
        'ARGUMENT_ERROR_LIMIT',
      );
    case 'fails': {
      const listed = verdict.problems.slice(0, PROBLEMS_LISTED).map(problemText);
      const text = argumentRefusedMessage(call, listed, verdict.problems.length - listed.length);
      return cutText(text, ARGUMENT_ERROR_LIMIT, 'ARGUMENT_ERROR_LIMIT');
    }
  }
}

/** `args.city must be string`: the argument as the declaration names it, then the rule it breaks. */
function problemText(problem: SchemaProblem): string {
  if (problem.extraProperty !== undefined) {
    return `${argumentPath(`${problem.path}/${problem.extraProperty.replaceAll('~', '~0').replaceAll('/', '~1')}`)} is not a property the tool takes`;
  }
  return `${argumentPath(problem.path)} ${problem.message}`;
}

/** A JSON Pointer into the argument as JavaScript reads it: `/items/0/first name` is `args.items[0]["first name"]`. */
export function argumentPath(pointer: string): string {
  let path = 'args';
  if (pointer === '') return path;
  for (const part of pointer.slice(1).split('/')) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^(0|[1-9]\d*)$/.test(key)) path += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) path += `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
  }
  return path;
}
