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

/** An upstream whose pages of tools/list did not all arrive within the listing's deadline. */
export function listingTimeoutMessage(ms: number, pages: number): string {
  return `it did not finish listing its tools within ${ms} ms (${pages} ${pages === 1 ? 'page' : 'pages'} read)`;
}

/** An upstream whose tool list weighs more than the bridge keeps of one (listing-weight.ts). */
export function listingTooLargeMessage(server: string, limit: number): string {
  return `The MCP server ${server} lists tools whose names, descriptions and schemas weigh more than ${limit} bytes as the bridge keeps them; the server cannot be served until its list is smaller.`;
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

/**
 * A word of a command line the user is told to type, quoted for a POSIX shell when it holds
 * anything a shell would read otherwise (a path with spaces, a server name with a quote).
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The command that obtains a person's authorization for one HTTP server (login.ts). */
export function loginCommand(server: string, configFile: string): string {
  return `codemode-mcp login ${shellWord(server)} --config ${shellWord(configFile)}`;
}

/** An HTTP server whose oauth has no token to send, or whose tokens no longer work. */
export function loginNeededMessage(server: string, configFile: string, why: string): string {
  return `The MCP server ${server} needs a person's authorization (${why}): run ${loginCommand(server, configFile)} in a terminal, and the bridge uses the new tokens from its next attempt to connect.`;
}

/** Why login is needed: the token file holds no tokens yet. */
export function noTokensReason(tokenFile: string): string {
  return `its token file ${tokenFile} holds no tokens yet`;
}

/** Why login is needed: the refresh failed, saying why. */
export function refreshFailedReason(reason: string): string {
  return `its tokens could not be refreshed: ${reason}`;
}

/** Why login is needed: the upstream refused the token and a refresh brought no new one. */
export const REFRESH_REFUSED_REASON = 'the upstream refused its token, and a refresh brought no new one';

/** Why login is needed: the upstream refused the token and the file holds nothing to refresh it with. */
export const NO_REFRESH_TOKEN_REASON = 'the upstream refused its token, and there is no refresh token';

/** The server refused the token the refresh had just obtained: one refresh, not a loop of them. */
export function refusedAfterRefreshMessage(server: string, configFile: string): string {
  return `The MCP server ${server} refused its access token (401) again right after the token was refreshed, so it was not refreshed again; if this keeps happening, run ${loginCommand(server, configFile)} to authorize anew.`;
}

/** oauth beside an Authorization header of the file's: two sources of one header. */
export const OAUTH_AND_HEADER_RULE =
  'cannot be given beside oauth, which sends the Authorization header itself; remove one of them.';

/** A token file that other users may read or write. */
export function tokenFileExposedMessage(path: string, mode: number): string {
  return `The token file ${path} may be read or written by other users (mode ${mode.toString(8).padStart(4, '0')}), who could then act as the person who authorized; it was not used. Run chmod 600 ${shellWord(path)} to keep it to yourself.`;
}

/** A token file another user owns. */
export function tokenFileOwnerMessage(path: string, owner: number, user: number): string {
  return `The token file ${path} belongs to the user with uid ${owner}, not to uid ${user}, who runs this command; tokens another user put there are not used. Name a file of your own in oauth.tokenFile and log in again.`;
}

export function tokenFileNotFileMessage(path: string): string {
  return `The token file ${path} is not a regular file; name a file in oauth.tokenFile.`;
}

export function tokenFileTooLargeMessage(path: string, limit: number): string {
  return `The token file ${path} is larger than ${limit} bytes, which no login writes (TOKEN_FILE_BYTES_LIMIT); it was not read.`;
}

export function tokenFileUnreadableMessage(path: string, reason: string): string {
  return `The token file ${path} could not be read as one codemode-mcp login writes (${reason}); log in again to write it anew.`;
}

/** Login: where the person goes to authorize. */
export function openAuthorizationMessage(server: string, url: string): string {
  return `To authorize codemode-mcp for the MCP server ${server}, open this address in a browser and sign in:\n\n  ${url}\n\nWaiting for the authorization server to send the browser back to this machine...`;
}

/** Login: done. */
export function loggedInMessage(server: string, tokenFile: string): string {
  return `authorized: the tokens for the MCP server ${server} are in ${tokenFile} (mode 0600). A bridge already running uses them from its next attempt to connect to ${server}.`;
}

/** Login: a redirect whose state is not the one this login sent. */
export const WRONG_STATE_MESSAGE =
  'A redirect arrived whose state is not the one this login sent, so it was refused: it did not come from the authorization this login started (another page may have sent it). Still waiting for the real one.';

export const REDIRECT_WITHOUT_CODE_MESSAGE =
  'The redirect carried neither an authorization code nor an error; run login again.';

/** Login: the page the browser shows once the code arrived. */
export const AUTHORIZED_PAGE =
  'codemode-mcp received the authorization. You can close this tab and go back to the terminal.';

/** Login: the authorization server answered the redirect with an error (the person declined, say). */
export function authorizationRefusedMessage(error: string, description: string): string {
  const because = description === '' ? '' : ` (${JSON.stringify(description.slice(0, 500))})`;
  return `The authorization server refused the authorization: ${JSON.stringify(error.slice(0, 100))}${because}; run login again to retry.`;
}

export function loginTimeoutMessage(ms: number): string {
  return `No authorization came back within ${ms / 1000} s (LOGIN_TIMEOUT); run login again when you are ready to sign in.`;
}

/** Login: the server named is not in the file, is not over HTTP, or has no oauth key. */
export function loginUnknownServerMessage(
  server: string,
  configFile: string,
  servers: readonly string[],
): string {
  return `${configFile} names no MCP server ${JSON.stringify(server)}; its servers are ${servers.map((name) => JSON.stringify(name)).join(', ')}.`;
}

export function loginNotHttpMessage(server: string): string {
  return `The MCP server ${JSON.stringify(server)} is started as a command, over stdio; only an HTTP server (one with a url) is authorized by login.`;
}

export function loginWithoutOauthMessage(server: string, configFile: string): string {
  return `The MCP server ${JSON.stringify(server)} in ${configFile} has no oauth key; add "oauth": { "tokenFile": "..." } to its entry, naming the file its tokens go in.`;
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

/** The journal store's folder (`journalStore`) is a link, or a file. */
export function journalStoreNotFolderMessage(folder: string): string {
  return `The journal store ${folder} is not a folder (or is a symbolic link); name a folder of your own for journalStore.`;
}

/** The journal store's folder belongs to another user. */
export function journalStoreOwnerMessage(folder: string, owner: number, user: number): string {
  return `The journal store ${folder} belongs to user ${owner}, not to this one (${user}); name a folder of your own for journalStore.`;
}

/** The journal store's folder may be entered by other users. */
export function journalStoreExposedMessage(folder: string, mode: number): string {
  return `The journal store ${folder} may be entered by other users (mode ${mode.toString(8).padStart(4, '0')}); run chmod 700 ${folder} to keep it to yourself.`;
}

/** Startup, over HTTP without a durable key: approvals resume only where they paused. */
export const EPHEMERAL_KEY_NOTE =
  'no durable key is configured (CODEMODE_DURABLE_KEYS, CODEMODE_DURABLE_KEYS_FILE or durableKeysFile), so approvals of clients on 2026-07-28 are sealed with a key made for this process: an answer resumes its run only on this instance, and none survives a restart';

/** An approval's answer whose requestState is not one (cut, changed, past its bound). */
export function badRequestStateMessage(reason: string): string {
  return `The requestState sent with this execute call is not one this bridge handed out (${reason}), so nothing was run; call execute again without it to start the program afresh.`;
}

/** An approval's answer whose paused run could not be resumed: the executor's refusal, by its code. */
export function approvalNotResumedMessage(code: string, reason: string): string {
  return `The approval answered with this execute call could not resume its program (${code}: ${reason}); nothing was run. ${RESUME_ADVICE[code] ?? 'Call execute again without requestState to start the program afresh.'}`;
}

const RESUME_ADVICE: Readonly<Record<string, string>> = {
  TOKEN_EXPIRED:
    'The question waited longer than approvalTimeout; call execute again without requestState to be asked again.',
  TOKEN_MISMATCH:
    'The requestState belongs to another execute call, another client, or a bridge serving other tools; send it only with the call it was handed out for.',
  TOKEN_REPLAYED: 'This requestState has resumed its program already; use the answer that resume gave.',
  TOKEN_FORGED:
    'The requestState was changed, or was sealed with a key this bridge does not hold; send it exactly as it was handed out, to a bridge sharing the key.',
  // The executor's own sentence already says to try the resume again: the state is not spent.
  CLAIM_UNAVAILABLE:
    'The requestState is still good: send the same call with it and the same answers again in a moment.',
};

/** An approval's reference names nothing in the journal store (expired, or never there). */
export const STATE_NOT_STORED_REASON =
  'the journal store holds nothing under its reference: it expired, or was kept by a bridge that shares no store with this one';

/** A pause whose state is past REQUEST_STATE_LIMIT, with no journal store to keep it. */
export function stateTooLargeMessage(length: number, limit: number): string {
  return `The program paused for an approval, but its state is ${length} characters, past the ${limit} a requestState may be, and no journalStore is configured to keep it; nothing was asked and the call was not made. Pause earlier (ask before the large results), or configure journalStore.`;
}

/**
 * A pause whose state the journal store could not keep (the disk is full, the folder read-only).
 * The store's own error names its files, which are the bridge's business, so only its code is said.
 */
export function stateNotKeptMessage(length: number, code: string): string {
  return `The program paused for an approval, but its state (${length} characters, too large to hand out) could not be kept in the journal store (${code}); nothing was asked and the call was not made. Try again once the store has room, or pause earlier (ask before the large results).`;
}

/** A pause whose state the journal store has no room for within its bound (journalStoreBytes). */
export function stateStoreFullMessage(length: number, limit: number): string {
  return `The program paused for an approval, but its state (${length} characters, too large to hand out) does not fit in the journal store, whose kept states may take ${limit} bytes together (journalStoreBytes in the bridge's config) and which holds approvals still waiting; nothing was asked and the call was not made. Try again once earlier approvals are answered or expire, pause earlier (ask before the large results), or raise journalStoreBytes.`;
}

/**
 * Why the journal store's folder is not used after startup, for the client: the sentence naming
 * the folder and what was found goes to the bridge's log, the folder being the bridge's business.
 */
const STORE_REFUSED_REASON =
  "the journal store's folder no longer passes the checks it passed at startup (it changed owner, others may enter it, or something else took its place), so the bridge will not use it; its log says what it found";

/** A pause whose state the journal store's folder, refused since startup, could not keep. */
export function stateStoreRefusedMessage(length: number): string {
  return `The program paused for an approval, but its state (${length} characters, too large to hand out) could not be kept: ${STORE_REFUSED_REASON}; nothing was asked and the call was not made.`;
}

/** An approval whose state is kept in a journal store that could not be read: refused, or failing by `code`. */
export function stateNotReadMessage(code: string | undefined): string {
  const why =
    code === undefined
      ? STORE_REFUSED_REASON
      : `the journal store that keeps its state could not be read (${code})`;
  return `The approval answered with this execute call could not resume its program: ${why}; nothing was run. The requestState is still good until it expires: send the same call with it again once the store is mended.`;
}

/** A pending call of a paused run that was not asked about: its outcome was not known when the run paused. */
export const OUTCOME_UNKNOWN_MESSAGE =
  'This call was still running when the program paused for an approval, so whether it was made is not known; it was not made again.';

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

/** An `execute` call whose arguments are not one `code` string; the names given, cut and escaped. */
export function executeArgumentsMessage(others: readonly string[]): string {
  const named = others
    .slice(0, 5)
    .map((key) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}...` : key))
    .join(', ');
  const more = others.length > 5 ? ` and ${others.length - 5} more` : '';
  return others.length === 0
    ? 'execute takes one argument, code, which must be a string holding the program.'
    : `execute takes one argument, code (a string holding the program); it was also given ${named}${more}.`;
}
