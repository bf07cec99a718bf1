/**
 * The file an HTTP upstream's OAuth tokens are kept in (`oauth.tokenFile`), written by
 * `codemode-mcp login` and by the bridge when it refreshes them. Whoever reads the file can act as
 * the person who authorized, so it is created with mode 0600 and written whole or not at all (a
 * file beside it, renamed over it), and a file that another user owns or that anyone else may read
 * or write is refused before a byte of it is used, with a sentence saying what to do.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import {
  tokenFileExposedMessage,
  tokenFileNotFileMessage,
  tokenFileOwnerMessage,
  tokenFileTooLargeMessage,
  tokenFileUnreadableMessage,
} from './texts.ts';

/** Tokens, a registration and discovery's answers: kilobytes; a megabyte is no file login wrote. */
export const TOKEN_FILE_BYTES_LIMIT = 1024 * 1024;

/** What the file holds: every part optional, since login writes them as the flow yields them. */
const storedSchema = z.looseObject({
  /** The loopback address the authorization was made with: the registered client knows no other. */
  redirectUrl: z.string().optional(),
  client: z.looseObject({ client_id: z.string() }).optional(),
  tokens: z.looseObject({ access_token: z.string(), token_type: z.string() }).optional(),
  /** Where the authorization server and its metadata were found, so a refresh need not look again. */
  discovery: z.looseObject({ authorizationServerUrl: z.string() }).optional(),
});
export type StoredAuthorization = z.infer<typeof storedSchema>;

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

/**
 * The file's content, or undefined when there is no file. Refuses (TokenFileError) a file that is
 * not a regular file, that `uid` does not own, or whose mode gives group or others any access.
 * The checks read the opened file itself, so the file cannot be swapped between check and read.
 */
export async function readTokenFile(
  path: string,
  uid: number | undefined = process.getuid?.(),
): Promise<StoredAuthorization | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokenFileError(tokenFileUnreadableMessage(path, (error as Error).message));
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new TokenFileError(tokenFileNotFileMessage(path));
    // Owners and modes are POSIX's; Windows reports neither in a form that says who may read.
    if (uid !== undefined && process.platform !== 'win32') {
      if (stat.uid !== uid) throw new TokenFileError(tokenFileOwnerMessage(path, stat.uid, uid));
      if ((stat.mode & 0o077) !== 0)
        throw new TokenFileError(tokenFileExposedMessage(path, stat.mode & 0o777));
    }
    if (stat.size > TOKEN_FILE_BYTES_LIMIT)
      throw new TokenFileError(tokenFileTooLargeMessage(path, TOKEN_FILE_BYTES_LIMIT));
    const text = await handle.readFile({ encoding: 'utf8' });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new TokenFileError(tokenFileUnreadableMessage(path, (error as Error).message));
    }
    const parsed = storedSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join('.') || 'the top level';
      throw new TokenFileError(tokenFileUnreadableMessage(path, `${where}: ${issue?.message ?? 'invalid'}`));
    }
    return parsed.data;
  } finally {
    await handle.close();
  }
}

/**
 * Writes `stored` to `path` whole: to a new file of mode 0600 beside it, flushed to disk, then
 * renamed over it, so a reader (another bridge, a login) sees the old file or the new one, never
 * half of either. The folder is made (mode 0700) when missing.
 */
export async function writeTokenFile(path: string, stored: StoredAuthorization): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const temporary = join(folder, `.${basename(path)}.${randomUUID()}.tmp`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      // The mode given to open is narrowed by the umask, never widened; this sets it whatever the umask.
      await handle.chmod(0o600);
      await handle.writeFile(`${JSON.stringify(stored, null, 2)}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
}
