/**
 * What a tool list weighs as the bridge keeps it: the characters of its strings and keys, and 16
 * for each value and key, about the bytes V8 holds for one. A listing is kept whole while it is read
 * and then for as long as the upstream is served, and pages (each up to the transport's 10 MiB)
 * arrive one after another: a server answering each page with one tool whose schema held 9.5 MiB of
 * `[]` had the bridge hold 130 MB a page, until its heap gave out (measured). Counted without
 * recursion (a schema may nest thousands of levels) and only as far as the limit.
 */

/** The weight a listing may reach: a thousand tools with schemas of a few kilobytes weigh far less. */
export const LISTING_WEIGHT_LIMIT = 32 * 2 ** 20;

const VALUE_WEIGHT = 16;

/** `value`'s weight, or a number past `limit` as soon as it is known to be past it. */
export function listingWeight(value: unknown, limit: number): number {
  let weight = 0;
  const waiting: unknown[] = [value];
  while (waiting.length > 0) {
    const item = waiting.pop();
    weight += VALUE_WEIGHT;
    if (typeof item === 'string') weight += item.length;
    else if (Array.isArray(item)) {
      for (const element of item) {
        if (weight > limit) return weight;
        weight += VALUE_WEIGHT;
        waiting.push(element);
      }
    } else if (item !== null && typeof item === 'object') {
      for (const key in item) {
        if (weight > limit) return weight;
        if (!Object.hasOwn(item, key)) continue;
        weight += key.length + VALUE_WEIGHT;
        waiting.push((item as Record<string, unknown>)[key]);
      }
    }
    if (weight > limit) return weight;
  }
  return weight;
}
