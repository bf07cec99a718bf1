/**
 * The decoder's fuzz: hostile texts (hostile-messages.ts) through a message table's decode: the
 * protocol's decodeMessage, which a server and a client run on what they receive, or the pool's
 * (src/pool/messages/), which the pool and its children run. Whatever the text, the decode must
 * return, never throw: a fault with a known code and a message saying what was wrong, or a message
 * that encodes and decodes to itself. A text that breaks that is kept with what it did.
 */
import {
  type Decoded,
  decodeMessage,
  encodeMessage,
  FAULT_CODES,
  type TypedMessage,
} from '@supolka/codemode-protocol';
import fc from 'fast-check';
import { extremeMessages, hostileMessage } from './hostile-messages.ts';

export interface DecodeFuzzReport {
  readonly messages: number;
  readonly seconds: number;
  /** Per family, how many decoded to a fault and how many to a message. */
  readonly families: Record<string, { fault: number; message: number }>;
  /** The first text that broke the rule, shrunk by fast-check, and what it did; undefined when none did. */
  readonly failure: { readonly text: string; readonly what: string } | undefined;
}

const CODES = new Set<string>(FAULT_CODES);

/** A message table's decode and encode, the protocol's unless a fuzz names another. */
export interface FuzzedTable {
  readonly decode: (text: string) => Decoded<TypedMessage>;
  readonly encode: (message: never) => string;
}

const PROTOCOL_TABLE: FuzzedTable = { decode: decodeMessage, encode: encodeMessage };

/** What decoding `text` did: accepted or faulted, and `broken` saying how it broke the rule, if it did. */
export function judgeDecoding(
  text: string,
  table: FuzzedTable = PROTOCOL_TABLE,
): { readonly accepted: boolean; readonly broken?: string } {
  let decoded: Decoded<TypedMessage>;
  try {
    decoded = table.decode(text);
  } catch (error) {
    const thrown = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { accepted: false, broken: `the decode threw ${thrown}` };
  }
  if (!decoded.ok) {
    const { code, message } = decoded.fault;
    if (!CODES.has(code)) return { accepted: false, broken: `a fault with the unknown code ${code}` };
    if (typeof message !== 'string' || message.length === 0)
      return { accepted: false, broken: 'a fault without a message' };
    return { accepted: false };
  }
  let again: Decoded<TypedMessage>;
  try {
    again = table.decode(table.encode(decoded.message as never));
  } catch (error) {
    return { accepted: true, broken: `an accepted message failed to encode again: ${String(error)}` };
  }
  if (!again.ok)
    return {
      accepted: true,
      broken: `an accepted message, encoded again, decoded to the fault ${again.fault.message}`,
    };
  return { accepted: true };
}

export function runDecodeFuzz(options: {
  messages: number;
  seed: number;
  maxDepth?: number;
  table?: FuzzedTable;
}): DecodeFuzzReport {
  const families: Record<string, { fault: number; message: number }> = {};
  const started = performance.now();
  const result = fc.check(
    fc.property(hostileMessage(options.maxDepth), ({ family, text }) => {
      const { accepted, broken } = judgeDecoding(text, options.table);
      const tally = families[family] ?? { fault: 0, message: 0 };
      families[family] = tally;
      if (accepted) tally.message++;
      else tally.fault++;
      return broken === undefined;
    }),
    { numRuns: options.messages, seed: options.seed },
  );
  const seconds = (performance.now() - started) / 1000;
  const counterexample = result.counterexample?.[0];
  return {
    messages: result.numRuns,
    seconds,
    families,
    failure:
      result.failed && counterexample
        ? {
            text: counterexample.text,
            what: judgeDecoding(counterexample.text, options.table).broken ?? String(result.errorInstance),
          }
        : undefined,
  };
}

/** The extreme texts (hostile-messages.ts) judged one by one, each with its size and how long it took. */
export function judgeExtremes(payloadLimit: number) {
  const judged: { family: string; bytes: number; ms: number; accepted: boolean; broken?: string }[] = [];
  for (const { family, text } of extremeMessages(payloadLimit)) {
    const started = performance.now();
    const { accepted, broken } = judgeDecoding(text);
    judged.push({
      family,
      bytes: text.length,
      ms: performance.now() - started,
      accepted,
      ...(broken ? { broken } : {}),
    });
  }
  return judged;
}
