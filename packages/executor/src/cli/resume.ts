/**
 * `codemode-executor resume FILE --token PATH --answers PATH`: finishes a durable run that `run
 * --durable` paused (docs/durable.md, "The command line"). FILE and every option of run are the
 * paused run's, since the token is bound to the request; `--token` names a file holding the token
 * (or the paused envelope `run --json` printed), never the command line, where other users of the
 * machine could read it; `--answers` a JSON file with one answer per pending call, by sequence:
 * `{ "2": { "result": ... } }`, `{ "error": "..." }` or `{ "perform": true }`. The key ring comes
 * from where run's does. Prints the envelope and exits as run does: 0, 1, 2, or 3 when it paused again.
 */
import type { ResumeAnswers } from '../durable/durability.ts';
import type { Resumption } from '../executor/durable-runs.ts';
import { parseRunCommandLine, UsageError } from './args.ts';
import { readTextFile } from './read-text-file.ts';
import { type Output, runProgram } from './run.ts';

export const RESUME_USAGE = `Usage: codemode-executor resume FILE --token PATH --answers PATH [options]

Resumes a durable run that \`codemode-executor run FILE --durable\` paused, in a fresh V8 isolate:
the program runs again, served what the paused run's tools answered, then goes on live. Prints the
envelope on stdout and exits as run does: 0 for a result, 1 for an error, 3 when it paused again.

FILE, --tools, --modules, --timeout, --memory and --outbound must be the paused run's: the token
is bound to the program and its settings, and any other is refused (TOKEN_MISMATCH). The durable
key ring comes from CODEMODE_DURABLE_KEYS, or the file --durable-keys-file or
CODEMODE_DURABLE_KEYS_FILE names, and must hold the key that sealed the token.

Options:
  --token PATH        a file holding the token: its text, or the envelope run --json printed
  --answers PATH      a JSON file answering each pending call by its sequence:
                      { "2": { "result": 42 }, "3": { "error": "refused" }, "4": { "perform": true } }
                      (perform calls the tool now, with durableCall().idempotencyKey set)
  and every option of run (codemode-executor help run)
  -h, --help          this text
`;

/** The most bytes a token file may hold: a token is at most MAX_TOKEN_SIZE characters, and an envelope holds more. */
const TOKEN_FILE_LIMIT = 64 * 1024 * 1024;
/** The most bytes an answers file may hold. */
const ANSWERS_FILE_LIMIT = 32 * 1024 * 1024;

export function resumeCli(
  argv: readonly string[],
  output: Output,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const { token, answers, rest } = takeResumeOptions(argv);
  return runProgram(
    () => {
      if (rest.includes('-h') || rest.includes('--help')) return 'help';
      if (token === undefined) throw new UsageError('resume needs --token PATH, the file holding the token.');
      if (answers === undefined)
        throw new UsageError('resume needs --answers PATH, the JSON file of answers.');
      return parseRunCommandLine(rest);
    },
    RESUME_USAGE,
    output,
    () => process.stdin,
    env,
    () => readResumption(token as string, answers as string),
  );
}

/** --token and --answers (as `--flag PATH` or `--flag=PATH`), and the rest of the line, which is run's. */
function takeResumeOptions(argv: readonly string[]): {
  token: string | undefined;
  answers: string | undefined;
  rest: string[];
} {
  const taken: Record<'token' | 'answers', string | undefined> = { token: undefined, answers: undefined };
  const rest: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    const match = /^--(token|answers)(?:=(.*))?$/.exec(argument);
    if (match === null) {
      rest.push(argument);
      continue;
    }
    const name = match[1] as 'token' | 'answers';
    const value = match[2] ?? argv[++index];
    if (value === undefined) throw new UsageError(`--${name} needs a value.`);
    taken[name] = value;
  }
  return { ...taken, rest };
}

/** The token (its text, or a printed envelope's paused.token) and the answers, read from their files. */
async function readResumption(tokenFile: string, answersFile: string): Promise<Resumption> {
  const tokenText = (await readTextFile(tokenFile, TOKEN_FILE_LIMIT, tokenFile)).trim();
  let token: unknown = tokenText;
  if (tokenText.startsWith('{')) {
    const envelope = parseJson(tokenText, tokenFile) as { paused?: { token?: unknown } } | null;
    token = envelope?.paused?.token;
    if (typeof token !== 'string') {
      throw new UsageError(
        `${tokenFile} holds JSON without paused.token: an envelope of a run that paused, or the token itself.`,
      );
    }
  }
  const answers = parseJson(await readTextFile(answersFile, ANSWERS_FILE_LIMIT, answersFile), answersFile);
  if (typeof answers !== 'object' || answers === null || Array.isArray(answers)) {
    throw new UsageError(
      `${answersFile} must hold a JSON object of answers by sequence: { "2": { "result": ... } }.`,
    );
  }
  return { token, answers: answers as ResumeAnswers };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not JSON: ${(error as Error).message}`);
  }
}
