/**
 * An upstream's tool result as the program receives it: `structuredContent` when there is one;
 * otherwise the content, one block as its value and several as a list of values. A text block is
 * its text parsed as JSON when it parses, otherwise the text; image and audio blocks are
 * `{ type, mimeType, data }` with the bytes as a Uint8Array; an embedded resource's blob is bytes
 * too. `isError` throws, with the upstream's text as the message.
 */

export class UpstreamToolError extends Error {
  override name = 'UpstreamToolError';
}

type Block = Readonly<Record<string, unknown>>;

export function toProgramValue(result: Readonly<Record<string, unknown>>): unknown {
  const content = Array.isArray(result.content) ? (result.content as Block[]) : [];
  if (result.isError === true) {
    const text = content
      .filter((block) => block.type === 'text' && typeof block.text === 'string')
      .map((block) => block.text as string)
      .join('\n');
    throw new UpstreamToolError(text === '' ? 'The tool reported an error and gave no text.' : text);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  // Tasks-era servers may answer a call with `toolResult` (the protocol's compatibility form).
  if (content.length === 0 && result.toolResult !== undefined) return result.toolResult;
  const values = content.map(blockValue);
  return values.length === 1 ? values[0] : values;
}

function blockValue(block: Block): unknown {
  switch (block.type) {
    case 'text':
      return textValue(String(block.text ?? ''));
    case 'image':
    case 'audio':
      return { type: block.type, mimeType: block.mimeType, data: bytes(block.data) };
    case 'resource': {
      const resource = (block.resource ?? {}) as Block;
      if (typeof resource.blob === 'string') return { ...resource, blob: bytes(resource.blob) };
      return resource;
    }
    default:
      return block;
  }
}

/** JSON when the whole text is JSON (an object, a list, a number...), else the text itself. */
function textValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

function bytes(base64: unknown): Uint8Array {
  const buffer = Buffer.from(typeof base64 === 'string' ? base64 : '', 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
