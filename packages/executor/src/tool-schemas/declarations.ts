/**
 * TypeScript declarations of tools, generated from their input and output JSON Schemas, for the
 * model to read in a code tool's description: the MCP bridge's upstream tools (docs/mcp.md) and a
 * library caller's (describe-tools.ts, docs/codemode.md). Schemas may come from an upstream server
 * and be huge, deeply nested or cyclic through `$ref`, so generation is bounded: past DEPTH_LIMIT
 * levels a schema reads as `unknown`, a `$ref` already being expanded reads as `unknown`, every
 * schema may spend at most NODE_BUDGET nodes (refs expanding into refs cannot grow it past that),
 * and a type longer than TYPE_LIMIT characters is replaced by its coarse form. That length is
 * checked at every node, not only at the end: one `$ref` to a long property name, taken by 50 tuple
 * slots of 50 tuple slots, made a 1 MB schema into a type of hundreds of megabytes (8.7 s, 1.2 GB,
 * then V8's `Invalid string length`, measured) within the node budget.
 */
import { sanitizeToolName } from '../codemode/sanitize.ts';
import { cutText, safeText } from './safe-text.ts';

/** Tools one namespace may hold: each is a function the program is told about. */
export const TOOL_LIMIT = 1000;
/** Characters a tool name may have: the MCP specification's 128. */
export const NAME_LIMIT = 128;
export const DEPTH_LIMIT = 8;
export const NODE_BUDGET = 2000;
export const TYPE_LIMIT = 4000;
/** A description longer than this is cut: it is prose for the model, not a contract. */
export const DESCRIPTION_LIMIT = 1000;
/** A string literal (a `const` or an `enum` value) longer than this is cut. */
export const LITERAL_LIMIT = 200;

type Schema = Readonly<Record<string, unknown>>;

/**
 * Characters all of a walk's types may add up to, each node's counted once built: a node's type
 * repeats its children's, so a schema within NODE_BUDGET could still have the walk build a type of
 * nearly TYPE_LIMIT at each of its nodes, eight million characters a tool, for a thousand tools.
 */
const WALK_CHAR_BUDGET = 64 * TYPE_LIMIT;

interface Walk {
  readonly root: Schema;
  readonly expanding: Set<string>;
  budget: number;
  /** Characters of the types built so far (WALK_CHAR_BUDGET). */
  spent: number;
}

/** The type of `schema`, bounded; `fallback` when the bound cuts it. */
export function schemaToType(schema: unknown, fallback = 'unknown'): string {
  if (!isSchema(schema)) return fallback;
  const walk: Walk = { root: schema, expanding: new Set(), budget: NODE_BUDGET, spent: 0 };
  const type = typeOf(schema, walk, 0, '');
  return type.length > TYPE_LIMIT || walk.budget < 0 ? fallback : type;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A schema's type, or `unknown` once a type built is past TYPE_LIMIT or all of them past
 * WALK_CHAR_BUDGET, which ends the walk.
 */
function typeOf(schema: unknown, walk: Walk, depth: number, indent: string): string {
  const type = nodeType(schema, walk, depth, indent);
  walk.spent += type.length;
  if (type.length <= TYPE_LIMIT && walk.spent <= WALK_CHAR_BUDGET) return type;
  walk.budget = -1;
  return 'unknown';
}

function nodeType(schema: unknown, walk: Walk, depth: number, indent: string): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  if (!isSchema(schema) || depth > DEPTH_LIMIT || --walk.budget < 0) return 'unknown';
  const ref = schema.$ref;
  if (typeof ref === 'string') return refType(ref, walk, depth, indent);
  if (Object.hasOwn(schema, 'const')) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.slice(0, 100).map(literal));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches))
      return union(branches.slice(0, 50).map((b) => typeOf(b, walk, depth + 1, indent)));
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.slice(0, 50).map((b) => typeOf(b, walk, depth + 1, indent));
    return parts.length === 0 ? 'unknown' : parts.map(parenthesize).join(' & ');
  }
  const type = schema.type;
  if (Array.isArray(type))
    return union(type.slice(0, 10).map((t) => typeOf({ ...schema, type: t }, walk, depth, indent)));
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, walk, depth, indent);
    case 'object':
      return objectType(schema, walk, depth, indent);
    default:
      return isSchema(schema.properties) ? objectType(schema, walk, depth, indent) : 'unknown';
  }
}

/**
 * `T[]`, or a tuple: `prefixItems` (2020-12, what zod writes for z.tuple) or an `items` list (draft
 * 7), its members past `minItems` optional, followed by the rest the other keyword allows (none when
 * it is `false`). Past 50 members the rest reads as `unknown`.
 */
function arrayType(schema: Schema, walk: Walk, depth: number, indent: string): string {
  const prefix = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : undefined;
  const element = (item: unknown) => typeOf(item, walk, depth + 1, indent);
  if (prefix === undefined) return `${parenthesize(element(schema.items))}[]`;
  const required = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const members: string[] = [];
  for (const [index, item] of prefix.slice(0, 50).entries()) {
    if (walk.budget < 0) break;
    members.push(index < required ? element(item) : `${parenthesize(element(item))}?`);
  }
  const rest = Array.isArray(schema.prefixItems) ? schema.items : schema.additionalItems;
  if (prefix.length > 50) members.push('...unknown[]');
  else if (rest !== false) members.push(`...${parenthesize(element(rest))}[]`);
  return `[${members.join(', ')}]`;
}

function objectType(schema: Schema, walk: Walk, depth: number, indent: string): string {
  const properties = isSchema(schema.properties) ? Object.entries(schema.properties) : [];
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((k) => typeof k === 'string') : [],
  );
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [key, value] of properties.slice(0, 200)) {
    // A name past TYPE_LIMIT makes the type too long whatever follows: not quoted, escaped or copied.
    if (key.length > TYPE_LIMIT) walk.budget = -1;
    if (walk.budget < 0) break;
    const doc = isSchema(value) ? docComment(value.description, inner) : '';
    const optional = required.has(key) ? '' : '?';
    lines.push(`${doc}${inner}${propertyKey(key)}${optional}: ${typeOf(value, walk, depth + 1, inner)};`);
  }
  const extra = schema.additionalProperties;
  if (isSchema(extra)) lines.push(`${inner}[key: string]: ${typeOf(extra, walk, depth + 1, inner)};`);
  else if (lines.length === 0 && extra !== false) return 'Record<string, unknown>';
  if (lines.length === 0) return '{}';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** Local references only (`#/$defs/x`, `#/definitions/x`): a schema never fetches anything. */
function refType(ref: string, walk: Walk, depth: number, indent: string): string {
  if (!ref.startsWith('#') || walk.expanding.has(ref)) return 'unknown';
  let target: unknown = walk.root;
  for (const part of ref.slice(1).split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    target = isSchema(target) && Object.hasOwn(target, key) ? target[key] : undefined;
  }
  if (target === undefined) return 'unknown';
  walk.expanding.add(ref);
  try {
    return typeOf(target, walk, depth + 1, indent);
  } finally {
    walk.expanding.delete(ref);
  }
}

function literal(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value === 'string') return stringLiteral(cutText(value, LITERAL_LIMIT, 'LITERAL_LIMIT'));
  return 'unknown';
}

function union(types: readonly string[]): string {
  const distinct = [...new Set(types)];
  if (distinct.length === 0) return 'never';
  if (distinct.includes('unknown')) return 'unknown';
  return distinct.map(parenthesize).join(' | ');
}

/** Wrapped in parentheses when it is a union or an intersection, so `[]`, `|` and `&` bind as meant. */
function parenthesize(type: string): string {
  return hasTopLevelOperator(type) ? `(${type})` : type;
}

function hasTopLevelOperator(type: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const char = type[i];
    if (quoted) {
      if (char === '\\') i++;
      else if (char === '"') quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === '{' || char === '(' || char === '<' || char === '[') depth++;
    else if (char === '}' || char === ')' || char === '>' || char === ']') depth--;
    else if (depth === 0 && (char === '|' || char === '&')) return true;
  }
  return false;
}

function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : stringLiteral(key);
}

/** A string literal that reads as `text` and cannot break the code block or a comment around it. */
function stringLiteral(text: string): string {
  return safeText(JSON.stringify(text));
}

/**
 * A JSDoc comment, its text made safe (safe-text.ts): unable to end the comment or the code block
 * early, and with `\n` the only line break, so every line it holds gets the ` * ` prefix.
 */
export function docComment(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description.trim() === '') return '';
  const cut = cutText(description, DESCRIPTION_LIMIT, 'DESCRIPTION_LIMIT');
  const lines = safeText(cut).trim().split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

export interface ToolShape {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
}

/** One function of a namespace: `name(args: {...}): Promise<...>;` with its description above. */
export function toolDeclaration(tool: ToolShape, indent = '  '): string {
  const input = schemaToType(tool.inputSchema, 'Record<string, unknown>').replaceAll('\n', `\n${indent}`);
  const output = schemaToType(tool.outputSchema, 'unknown').replaceAll('\n', `\n${indent}`);
  return `${docComment(tool.description, indent)}${indent}${sanitizeToolName(tool.name)}(args: ${input}): Promise<${output}>;`;
}

/** A namespace's declaration: `declare const name: { ... };`. */
export function namespaceDeclaration(
  namespace: string,
  tools: readonly ToolShape[],
  description?: string,
): string {
  const body = tools.map((tool) => toolDeclaration(tool)).join('\n');
  return `${docComment(description, '')}declare const ${namespace}: {\n${body}\n};`;
}
