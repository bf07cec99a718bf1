/**
 * Where the serve command finds its bearer token: an environment variable or a file, never the
 * command line (any user of the machine can read another's argv in /proc or ps).
 */
import { readFile } from 'node:fs/promises';

export const TOKEN_ENV = 'CODEMODE_EXECUTOR_TOKEN';
export const TOKEN_FILE_ENV = 'CODEMODE_EXECUTOR_TOKEN_FILE';

export class TokenSourceError extends Error {
  override name = 'TokenSourceError';
}

/**
 * The token from `$CODEMODE_EXECUTOR_TOKEN`, or from the file `tokenFile` (or
 * `$CODEMODE_EXECUTOR_TOKEN_FILE`) names, its trailing newline dropped; undefined when none is set.
 */
export async function readToken(
  env: Readonly<Record<string, string | undefined>>,
  tokenFile: string | undefined,
): Promise<string | undefined> {
  const file = tokenFile ?? env[TOKEN_FILE_ENV];
  const inline = env[TOKEN_ENV];
  if (inline !== undefined && file !== undefined) {
    throw new TokenSourceError(`Both ${TOKEN_ENV} and a token file are set; keep one of them.`);
  }
  if (inline !== undefined) return inline;
  if (file === undefined) return undefined;
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new TokenSourceError(`Cannot read the token file ${file}: ${error.code ?? error.message}.`);
  });
  return text.replace(/\r?\n$/, '');
}
