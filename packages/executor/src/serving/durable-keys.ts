/**
 * Where a process that serves durable runs (the server, the CLI's run and resume) finds its key
 * ring: an environment variable or a file, never the command line (any user of the machine can
 * read another's argv), as the bearer token is found (token.ts). The text lists keys by id, each
 * as base64 of at least 32 random bytes, and marks the current one, which seals new tokens:
 *
 *   *2026-12=3q2+7w...,2026-06=q83v...
 *
 * Keys are separated by commas or line breaks; `*` before an id marks the current key, and may be
 * left out when there is one key. Rotating is editing this text on every server, in the three
 * steps of docs/durable.md, "Key rotation": add the new key, move the `*` to it, and remove the old
 * one once the longest token life has passed.
 */
import { readFile } from 'node:fs/promises';
import { DurableKeyError } from '../durable/errors.ts';
import { DurableKeyRing } from '../durable/keys.ts';

export const DURABLE_KEYS_ENV = 'CODEMODE_DURABLE_KEYS';
export const DURABLE_KEYS_FILE_ENV = 'CODEMODE_DURABLE_KEYS_FILE';

export class DurableKeysSourceError extends Error {
  override name = 'DurableKeysSourceError';
}

/**
 * The key ring from `$CODEMODE_DURABLE_KEYS`, or from the file `keysFile` (or
 * `$CODEMODE_DURABLE_KEYS_FILE`) names; undefined when none is set. Throws DurableKeysSourceError
 * naming the source for one that cannot be read or parsed, or whose keys the ring refuses (too
 * short, a duplicate id); no message repeats a key.
 */
export async function readDurableKeys(
  env: Readonly<Record<string, string | undefined>>,
  keysFile?: string,
): Promise<DurableKeyRing | undefined> {
  const file = keysFile ?? env[DURABLE_KEYS_FILE_ENV];
  const inline = env[DURABLE_KEYS_ENV];
  if (inline !== undefined && file !== undefined) {
    throw new DurableKeysSourceError(
      `Both ${DURABLE_KEYS_ENV} and a durable keys file are set; keep one of them.`,
    );
  }
  if (inline !== undefined) return parseDurableKeys(inline, DURABLE_KEYS_ENV);
  if (file === undefined) return undefined;
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new DurableKeysSourceError(
      `Cannot read the durable keys file ${file}: ${error.code ?? error.message}.`,
    );
  });
  return parseDurableKeys(text, `the durable keys file ${file}`);
}

/** The ring the text lists; `source` names where it came from in a refusal. */
export function parseDurableKeys(text: string, source: string): DurableKeyRing {
  const entries = text
    .split(/[,\r\n]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new DurableKeysSourceError(`${source} lists no key.`);
  let current: string | undefined;
  const keys = entries.map((entry, index) => {
    const marked = entry.startsWith('*');
    const body = marked ? entry.slice(1) : entry;
    const equals = body.indexOf('=');
    if (equals <= 0) {
      throw new DurableKeysSourceError(
        `${source}: key ${index + 1} is not written id=base64 (with * before the id of the current key).`,
      );
    }
    const id = body.slice(0, equals).trim();
    const encoded = body.slice(equals + 1).trim();
    // Named by its place only: a key written without its id would put the key where the id goes.
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) {
      throw new DurableKeysSourceError(
        `${source}: key ${index + 1} is not written id=base64 (its key is not base64).`,
      );
    }
    if (marked) {
      if (current !== undefined)
        throw new DurableKeysSourceError(`${source} marks more than one key current.`);
      current = id;
    }
    return {
      id,
      key: Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64'),
    };
  });
  try {
    return new DurableKeyRing({ keys, ...(current !== undefined ? { current } : {}) });
  } catch (error) {
    // The ring's own sentence (a key too short, a duplicate id), said of where the text came from.
    if (error instanceof DurableKeyError) throw new DurableKeysSourceError(`${source}: ${error.message}`);
    throw error;
  }
}
