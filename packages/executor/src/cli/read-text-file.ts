/**
 * Reads a file the command line names as UTF-8 text, never more than a bound of it: the path may
 * name something endless (/dev/zero, a FIFO nobody writes), something huge, or bytes that are not
 * text, and each is refused with a sentence naming the file before more than the bound is read.
 * Standard input (`run -`) is read to the same bound and the same check, as a stream: its size
 * is not known before it ends.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { UsageError } from './args.ts';

export function notAFileMessage(what: string): string {
  return `${what} is not a regular file.`;
}

export function tooLargeMessage(what: string, bytes: number): string {
  return `${what} is larger than the ${bytes} bytes it may hold.`;
}

export function notUtf8Message(what: string): string {
  return `${what} is not UTF-8 text.`;
}

export function changedMessage(what: string): string {
  return `${what} grew while it was read.`;
}

export function unreadableMessage(what: string, reason: string): string {
  return `Cannot read ${what}: ${reason}.`;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The text of `path`, at most `maxBytes` of it; `what` names it in every error (a UsageError). */
export async function readTextFile(path: string, maxBytes: number, what: string): Promise<string> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO with no writer must not wait; the check below refuses it.
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(unreadableMessage(what, code ?? message));
  }
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw new UsageError(notAFileMessage(what));
    if (stat.size > maxBytes) throw new UsageError(tooLargeMessage(what, maxBytes));
    // The size read above may change under the read: one byte past it is all that is taken.
    const buffer = Buffer.alloc(stat.size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > stat.size) throw new UsageError(changedMessage(what));
    try {
      return decoder.decode(buffer.subarray(0, length));
    } catch {
      throw new UsageError(notUtf8Message(what));
    }
  } finally {
    await file.close();
  }
}

/**
 * The text of `stream` (standard input) up to its end, at most `maxBytes` of it: past the bound the
 * read stops, one chunk past it at most, and the stream is let go; `what` names it in every error.
 */
export async function readTextStream(
  stream: AsyncIterable<Uint8Array>,
  maxBytes: number,
  what: string,
): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      length += chunk.byteLength;
      // Leaving the loop ends the stream's iteration: nothing more is read.
      if (length > maxBytes) throw new UsageError(tooLargeMessage(what, maxBytes));
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const { code, message } = error as NodeJS.ErrnoException;
    throw new UsageError(unreadableMessage(what, code ?? message));
  }
  try {
    return decoder.decode(Buffer.concat(chunks, length));
  } catch {
    throw new UsageError(notUtf8Message(what));
  }
}
