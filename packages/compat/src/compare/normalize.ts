/**
 * The normalisation both records pass through before they are compared (docs/compat.md,
 * "Normalisation"). Only what differs between any two runs of the same program on the same
 * runtime is masked; everything else is compared exactly.
 *
 * Always applied, to every string in the record (result, error, log lines, responses):
 *   - the loopback server's real origin becomes the placeholder the case was written with;
 *   - a version 4 UUID becomes `<uuid>` (crypto.randomUUID() differs on every call);
 *   - the headers of a retained handler's responses become a list of lowercased names sorted by
 *     name, values kept in order: workerd lets no JavaScript observe a response's header order
 *     or the case of its names (the harness can read them only through Headers, which sorts and
 *     lowercases), and HTTP gives neither a meaning.
 * Applied when a case asks for it (Case.masks):
 *   - `timestamps`: an ISO 8601 date-time becomes `<timestamp>`, and a number between 1e12 and
 *     1e13 (epoch milliseconds, 2001 to 2286) becomes the string `<epoch-ms>`.
 */
import { LOOPBACK_PLACEHOLDER } from '../case.ts';
import type { RunRecord } from '../record.ts';

export const MASK_NAMES = ['timestamps'] as const;
export type MaskName = (typeof MASK_NAMES)[number];

const UUID_V4 = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/gi;
const ISO_DATE_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

export interface NormaliseOptions {
  /** `http://127.0.0.1:<port>` of this run's loopback server. */
  readonly loopbackOrigin: string;
  readonly masks?: readonly MaskName[];
}

export function normaliseString(text: string, options: NormaliseOptions): string {
  const host = options.loopbackOrigin.replace(/^http:\/\//, '');
  let out = text.split(options.loopbackOrigin).join(LOOPBACK_PLACEHOLDER);
  // A program may print the host alone (URL.host, a Host header).
  out = out.split(host).join(LOOPBACK_PLACEHOLDER.replace(/^http:\/\//, ''));
  out = out.replace(UUID_V4, '<uuid>');
  if (options.masks?.includes('timestamps')) out = out.replace(ISO_DATE_TIME, '<timestamp>');
  return out;
}

/** Walks a decoded value, rewriting strings (keys too) and, under `timestamps`, epoch numbers. */
export function normaliseValue(value: unknown, options: NormaliseOptions): unknown {
  if (typeof value === 'string') return normaliseString(value, options);
  if (typeof value === 'number') {
    const epoch = options.masks?.includes('timestamps') && value >= 1e12 && value < 1e13;
    return epoch ? '<epoch-ms>' : value;
  }
  if (Array.isArray(value)) return value.map((item) => normaliseValue(item, options));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, normaliseString(key, options), {
        value: normaliseValue(item, options),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  // Binary values and anything else the codec decoded are compared as they are.
  return value;
}

/** Lowercased names, stably sorted by name, so repeated headers keep their relative order. */
function canonicalHeaders(headers: readonly (readonly [string, string])[]): [string, string][] {
  return headers
    .map(([name, value]): [string, string] => [name.toLowerCase(), value])
    .sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0));
}

export function normaliseRecord(record: RunRecord, options: NormaliseOptions): RunRecord {
  const normalised = normaliseValue(record, options) as RunRecord;
  if (normalised.responses === undefined) return normalised;
  return {
    ...normalised,
    responses: normalised.responses.map((response) =>
      response.headers === undefined
        ? response
        : { ...response, headers: canonicalHeaders(response.headers) },
    ),
  };
}
