/** Every text the Code Mode form can answer with, defined once and asserted verbatim by the tests. */

export const PROVIDERS_MESSAGE =
  'Invalid Code Mode request: the second argument must be a list of providers ({ name, fns, prelude? }) or an object of tool functions.';

export function providerMessage(index: number): string {
  return `Invalid Code Mode request: providers[${index}] must be an object with a string name and an object of fns.`;
}

export const OPTIONS_MESSAGE = 'Invalid Code Mode request: the third argument must be an object.';

export const CONNECTORS_MESSAGE =
  'Invalid Code Mode request: options.connectors must be a list of { name, binding: { callTool } }.';

export function connectorMessage(index: number): string {
  return `Invalid Code Mode request: options.connectors[${index}] must be an object with a string name and a binding whose callTool is a function.`;
}

export function toolNameCollisionMessage(
  provider: string,
  first: string,
  second: string,
  name: string,
): string {
  return `Invalid Code Mode request: the tools ${JSON.stringify(first)} and ${JSON.stringify(second)} of provider ${provider} are both called ${name} once their names are made identifiers; rename one of them.`;
}

/** runCode treats an empty `error` as success, so a failure whose text is empty is given this one. */
export const EMPTY_ERROR_MESSAGE = 'The program failed with an error that has no message.';

/**
 * Code whose operators chain deeper than the reader's stack (a million `!`, `a = a = ...`): brackets
 * are counted before any parser runs, these are not, and on as written the engine would blame the
 * executor's wrapper instead.
 */
export const CODE_TOO_DEEP_MESSAGE =
  'The code chains operators too deeply to be read (its reader ran out of stack): split long chains into statements.';
