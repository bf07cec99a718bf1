/**
 * The decoder's fuzz: hostile texts (hostile-messages.ts) through the protocol's decodeMessage,
 * which every process boundary runs on what it receives. Whatever the text, decodeMessage must
 * return, never throw: a fault with a known code and a message saying what was wrong, or a message
 * that encodes and decodes to itself. A text that breaks that is kept with what it did.
 */
import { decodeMessage, encodeMessage, FAULT_CODES } from '@supolka/codemode-protocol';
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

/** What decoding `text` did: accepted or faulted, and `broken` saying how it broke the rule, if it did. */
export function judgeDecoding(text: string): { readonly accepted: boolean; readonly broken?: string } {
  let decoded: ReturnType<typeof decodeMessage>;
  try {
    decoded = decodeMessage(text);
  } catch (error) {
    const thrown = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { accepted: false, broken: `decodeMessage threw ${thrown}` };
  }
  if (!decoded.ok) {
    const { code, message } = decoded.fault;
    if (!CODES.has(code)) return { accepted: false, broken: `a fault with the unknown code ${code}` };
    if (typeof message !== 'string' || message.length === 0)
      return { accepted: false, broken: 'a fault without a message' };
    return { accepted: false };
  }
  let again: ReturnType<typeof decodeMessage>;
  try {
    again = decodeMessage(encodeMessage(decoded.message));
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
}): DecodeFuzzReport {
  const families: Record<string, { fault: number; message: number }> = {};
  const started = performance.now();
  const result = fc.check(
    fc.property(hostileMessage(options.maxDepth), ({ family, text }) => {
      const { accepted, broken } = judgeDecoding(text);
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
            what: judgeDecoding(counterexample.text).broken ?? String(result.errorInstance),
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
