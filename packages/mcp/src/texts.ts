/**
 * Every sentence the mcp command says: to its operator at startup, to the model inside a program,
 * and to the client in an answer. Defined once here and asserted verbatim by the tests.
 */

/** Two config keys that sanitize to one namespace. */
export function serverNameCollisionMessage(first: string, second: string, name: string): string {
  return `The MCP servers ${JSON.stringify(first)} and ${JSON.stringify(second)} in mcpServers are both called ${name} once their names are made identifiers; rename one of them.`;
}

/** A config key whose namespace the provider rules reserve. */
export function serverNameReservedMessage(key: string, name: string, reason: string): string {
  return `The MCP server ${JSON.stringify(key)} in mcpServers would be the namespace ${name}, which a program cannot be given: ${reason}; rename it.`;
}

/** Two tools of one upstream that sanitize to one function name. */
export function toolNameCollisionMessage(
  server: string,
  first: string,
  second: string,
  name: string,
): string {
  return `The tools ${JSON.stringify(first)} and ${JSON.stringify(second)} of the MCP server ${server} are both called ${name} once their names are made identifiers; the server cannot be served until one is renamed.`;
}

/** An upstream offering more tools than one namespace may hold. */
export function tooManyToolsMessage(server: string, limit: number): string {
  return `The MCP server ${server} lists more than ${limit} tools, more than one namespace may hold.`;
}

/** An upstream tool name too long to be a function name the model reads. */
export function toolNameTooLongMessage(server: string, length: number, limit: number): string {
  return `The MCP server ${server} lists a tool whose name is ${length} characters long, past the ${limit} a name may have.`;
}

/** A config file that does not hold the format; `where` is the key path, `rule` what it must be. */
export function configKeyMessage(file: string, where: string, rule: string): string {
  return `${file}: ${where}: ${rule}`;
}

export function configNotJsonMessage(file: string, reason: string): string {
  return `${file} is not JSON: ${reason}`;
}

export function noServersMessage(file: string): string {
  return `${file} names no MCP server: mcpServers must hold at least one entry.`;
}

/** Startup: one upstream could not be reached; the others are served. */
export function upstreamFailedMessage(server: string, reason: string): string {
  return `codemode-executor mcp: the MCP server ${server} failed to start and is not served: ${reason}`;
}

/** Connecting or listing tools took too long. */
export function connectTimeoutMessage(ms: number): string {
  return `it did not finish connecting and listing its tools within ${ms} ms`;
}

/** A call to an upstream that is down (exited, dropped, never started). */
export function upstreamDownMessage(server: string, reason: string): string {
  return `The MCP server ${server} is not available (${reason}); it is being restarted, so retry this call in a few seconds or do without it.`;
}

/** An upstream call that got no answer in time. */
export function upstreamTimeoutMessage(server: string, tool: string, ms: number): string {
  return `The MCP server ${server} did not answer the call of ${tool} within ${ms} ms (upstreamTimeout).`;
}

/** An upstream call that failed on the wire (a garbage answer, a protocol error). */
export function upstreamCallFailedMessage(server: string, tool: string, reason: string): string {
  return `The call of ${tool} on the MCP server ${server} failed: ${reason}`;
}

/** The program made more upstream calls than one execution may. */
export function tooManyCallsMessage(limit: number): string {
  return `This program has already made ${limit} upstream tool calls, the most one execution may (maxUpstreamCalls); do the rest in another execute call, or fewer, larger calls.`;
}

/** A policy says deny; `rule` is the rule that decided, as the config writes it. */
export function deniedMessage(call: string, rule: string): string {
  return `The call of ${call} is denied by this server's approval policy (${rule}); do not retry it, find another way or tell the user it is not allowed.`;
}

/** A flat approvals key that could name two different server and tool pairs. */
export function ambiguousRuleMessage(
  readings: readonly (readonly [string, string])[],
  decision: string,
): string {
  const [[server, tool], [otherServer, otherTool]] = readings as [[string, string], [string, string]];
  const q = JSON.stringify;
  return `is ambiguous: server and tool names may both hold dots, so it could mean the tools ${q(tool)} of the server ${q(server)} or the tools ${q(otherTool)} of the server ${q(otherServer)}; write the server and its tools apart, as { ${q(server)}: { ${q(tool)}: ${q(decision)} } } or { ${q(otherServer)}: { ${q(otherTool)}: ${q(decision)} } }.`;
}

/** The user declined an `ask`. */
export function declinedMessage(call: string): string {
  return `The user declined the call of ${call}; do not retry it unless the user asks for it.`;
}

/** The user dismissed an `ask` without deciding, or it could not be asked. */
export function unansweredMessage(call: string, reason: string): string {
  return `The call of ${call} needs the user's approval and did not get it (${reason}); it was not made.`;
}

/** Why an `ask` got no answer: none came in time. */
export function approvalTimeoutReason(ms: number): string {
  return `no answer came within ${ms} ms (approvalTimeout)`;
}

/** A policy says ask and the client cannot be asked. */
export function noElicitationMessage(call: string): string {
  return `The call of ${call} needs the user's approval, but this MCP client does not support elicitation, so it cannot be asked; the call was not made. Use a client that supports elicitation, or change the policy for this tool.`;
}

/**
 * A policy says ask and the client speaks the current revision (2026-07-28), which has no request
 * from server to client: its way to ask, a multi round-trip result, is not offered yet.
 */
export function noAskOnCurrentRevisionMessage(call: string): string {
  return `The call of ${call} needs the user's approval, but this MCP client speaks the protocol revision 2026-07-28, where a server cannot ask mid-call the way this bridge asks; the call was not made. Connect with a client on an earlier revision (2025-11-25 or 2025-06-18) that supports elicitation, or change the policy for this tool.`;
}

/**
 * What the user is asked: the server and the tool by the names the config and the upstream give
 * them, any warning about the server's name, then one line per argument (`name: JSON value`) in
 * the order approval-question.ts sets.
 */
export function approvalQuestion(
  server: string,
  tool: string,
  warnings: readonly string[],
  argumentLines: readonly string[],
): string {
  const args =
    argumentLines.length === 0
      ? 'It passes no arguments.'
      : `Its arguments, in the order the tool declares them:\n${argumentLines.join('\n')}`;
  const warned = warnings.map((warning) => `Warning: ${warning}\n`).join('');
  return `A program wants to call the tool ${tool} of the MCP server ${server}.\n${warned}${args}\nAllow this call?`;
}

/** A warning of the approval question: the server's name holds characters past plain ASCII. */
export const NOT_ASCII_SERVER_WARNING =
  "the server's name holds characters outside plain ASCII (shown as \\u escapes), so it may imitate another name.";

/** A warning of the approval question: two configured servers' names look alike. */
export function lookAlikeServerWarning(other: string): string {
  return `the server's name looks like the name of the MCP server ${other}; check which of the two this is.`;
}

/** An approval question too long to show whole is not asked. */
export function questionTooLongMessage(call: string, length: number, limit: number): string {
  return `The call of ${call} needs the user's approval, but the question showing its arguments whole would be ${length} characters, past the ${limit} a question may have (QUESTION_LIMIT); it was not asked and the call was not made. Pass smaller arguments, or tell the user to change the approval policy for this tool.`;
}

/** After the program's answer text when it was cut. */
export function truncatedMarker(shown: number, total: number): string {
  return `\n[truncated: ${total} characters, the first ${shown} shown (maxResultLength); return less, or a part at a time]`;
}

/** The answer to a tool name this server does not offer. */
export function unknownToolMessage(name: string, offered: readonly string[]): string {
  return `Unknown tool ${JSON.stringify(name)}; this server offers ${offered.join(', ')}.`;
}

/** describe asked for a tool the catalog does not hold. */
export function notInCatalogMessage(name: string): string {
  return `No tool ${JSON.stringify(name)} in the catalog; search lists the names, as server.tool.`;
}

/** A call (or its approval) the program left running when its execution ended. */
export function executionEndedMessage(call: string): string {
  return `The call of ${call} was not made: the execution it belongs to has ended.`;
}

/** After an answer whose program left upstream calls in flight; `calls` are `name (count)` items. */
export function callsInFlightMessage(calls: readonly string[]): string {
  return `Upstream calls still in flight when the execution ended were cancelled (an upstream may still finish one it had begun): ${calls.join(', ')}.`;
}

/** Why an HTTP upstream's message was not read to its end. */
export function upstreamMessageTooLargeMessage(limit: number): string {
  return `it sent a message of more than ${limit} bytes (UPSTREAM_MESSAGE_LIMIT), the bound on one upstream message on every transport`;
}

/** An answer whose check against its tool's output schema did not end in time. */
export function validationTimeoutMessage(ms: number): string {
  return `its answer could not be checked against the tool's output schema within ${ms} ms (VALIDATION_TIMEOUT), so it was not used`;
}

/** An answer that does not hold against its tool's output schema. */
export function outputSchemaMessage(reason: string): string {
  return `its structured content does not match the tool's output schema: ${reason}`;
}

/** The block that lists what the result or a tool call's arguments lost on the way (docs/mcp.md). */
export const NOTES_BLOCK = 'notes:\n';

/** The error details block's line prefixes: which call failed and where, a thrown object's JSON. */
export const FAILED_CALL_LINE = 'failed call: ';
export const THROWN_LINE = 'thrown: ';
