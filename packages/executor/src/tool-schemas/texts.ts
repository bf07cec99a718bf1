/**
 * Every text describeTools answers with, defined once and asserted verbatim by the tests: the
 * refusals of a tool set it cannot describe (thrown to its caller when the set is made), the errors
 * a program meets when a call's argument does not hold against its tool's input schema, and the
 * words of the code tool's description.
 */

import { safeText } from './safe-text.ts';

/**
 * The chapter section a refusal points a caller to, by URL: the installed package ships no docs/.
 * It is docs/codemode.md, "Describing tools to the model".
 */
const CHAPTER =
  'https://github.com/supolka/codemode/blob/main/docs/codemode.md#describing-tools-to-the-model';
const FORMS = `a JSON Schema object, an AI SDK schema, a Standard JSON Schema (zod 4 and others) or a schema with a toJSONSchema() method (${CHAPTER})`;

export function notJsonSchemaMessage(where: string, got: string): string {
  return `${where} must be ${FORMS}; got ${got}.`;
}

export function standardSchemaWithoutJsonMessage(where: string): string {
  return `${where} is a Standard Schema without a JSON Schema export (~standard.jsonSchema), so nothing of it can be declared to the model or checked off this thread: convert it to JSON Schema with its library's converter, or leave inputSchema out and validate in execute (${CHAPTER}).`;
}

export function aiSchemaPendingMessage(where: string): string {
  return `${where} is an AI SDK schema whose JSON Schema is still a promise: await it and pass the JSON Schema itself.`;
}

export function unconvertibleSchemaMessage(where: string, reason: string): string {
  return `${where} could not be converted to JSON Schema: ${reason}`;
}

export function notSerializableMessage(where: string, reason: string): string {
  return `${where} is not a JSON Schema that JSON can hold: ${reason}`;
}

export const NAMESPACES_MESSAGE =
  'describeTools takes a list of namespaces, each an object { name, description?, tools }.';

export function notToolsMessage(namespace: string): string {
  return `Namespace ${namespace} must have tools: an object of { description?, inputSchema?, outputSchema?, execute }.`;
}

export function notToolMessage(call: string): string {
  return `Tool ${call} must be an object { description?, inputSchema?, outputSchema?, execute } whose execute is a function.`;
}

export function tooManyToolsMessage(namespace: string, limit: number): string {
  return `Namespace ${namespace} has more than ${limit} tools (TOOL_LIMIT): the model is told of each, so split them into namespaces.`;
}

export function toolNameTooLongMessage(namespace: string, length: number, limit: number): string {
  return `Namespace ${namespace} has a tool name of ${length} characters, past the ${limit} a name may have (NAME_LIMIT).`;
}

export function sameNameMessage(namespace: string, first: string, second: string, name: string): string {
  return `The tools ${JSON.stringify(first)} and ${JSON.stringify(second)} of namespace ${namespace} are both called ${name} once their names are made identifiers; rename one of them.`;
}

/** Problems listed in one refused call, at most: every other is counted. */
export const PROBLEMS_LISTED = 5;
/** Characters of one refused call's error: the rules quote the schema's patterns, the paths the program's keys. */
export const ARGUMENT_ERROR_LIMIT = 1000;

/**
 * A call whose argument does not hold against its tool's input schema: each problem names the
 * argument (`args.city`, as the declaration names the parameter) and the rule it breaks.
 */
export function argumentRefusedMessage(call: string, problems: readonly string[], more: number): string {
  const also = more > 0 ? `; and ${more} more` : '';
  return `${call} was not called: its argument does not match the tool's input schema: ${problems.join('; ')}${also}. Fix the argument and call it again.`;
}

export function argumentCheckTimeoutMessage(call: string, ms: number): string {
  return `${call} was not called: its argument could not be checked against the tool's input schema within ${ms} ms (VALIDATION_TIMEOUT). Send a shorter or simpler argument.`;
}

export function unreadableInputSchemaMessage(call: string, reason: string): string {
  return `${call} was not called: the tool's input schema could not be compiled (${reason}); the tool's author has to mend it.`;
}

/**
 * The code tool's description above the declarations: what to write (the shapes the Code Mode form
 * takes, `execute(code, providers)`) and how the tools are called.
 */
export const CODE_TOOL_INTRO = [
  'Runs a JavaScript program in a sandbox and answers what it returns. Write statements ending in',
  '`return` (or one async arrow function); TypeScript annotations are erased. Call the tools',
  'declared below with `await`, each with one object argument: a call whose argument does not',
  'match its declaration fails with an error naming the argument and the rule it breaks.',
].join('\n');

/**
 * What a code tool's description says of the packages a program may import (docs/packages.md):
 * each with its version, so the model writes against the API it will meet. Empty when none are
 * allowed. Names and versions come from the packages' own package.json: made safe like every
 * other text a description quotes.
 */
export function packagesLine(
  packages: readonly { readonly name: string; readonly version: string }[],
): string {
  if (packages.length === 0) return '';
  const listed = packages.map(({ name, version }) => `${name}@${version}`).join(', ');
  const first = (packages[0] as { name: string }).name;
  return safeText(
    `The program may import these npm packages, by name and by the subpaths their exports offer, and no others: ${listed}. Import them at the top (import ... from '${first}') or with await import('${first}').`,
  );
}
