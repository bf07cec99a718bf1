/**
 * The code cache's budget: a pool child keeps its cache for life, so what it holds is resident
 * memory the child never gives back (src/sandbox/modules/code-cache.ts, docs/pool.md "Memory").
 */
import { expect, test } from 'vitest';
import { BoundedCodeCache, DEFAULT_CODE_CACHE_BUDGET } from '../../src/sandbox/modules/code-cache.ts';

const blob = (bytes: number) => new ArrayBuffer(bytes);

test('the default cache holds no more than its budget, dropping the least recently used first', () => {
  const cache = new BoundedCodeCache();
  const size = 256 * 1024;
  const count = (2 * DEFAULT_CODE_CACHE_BUDGET) / size;
  for (let index = 0; index < count; index++) {
    cache.set(`k${index}`, blob(size));
    // k0 is read each time, so it stays the most recently used of the old ones.
    cache.get('k0');
  }
  expect(cache.bytes).toBe(DEFAULT_CODE_CACHE_BUDGET);
  expect(cache.size).toBe(DEFAULT_CODE_CACHE_BUDGET / size);
  expect(cache.get('k0')).toBeDefined();
  expect(cache.get('k1')).toBeUndefined();
  expect(cache.get(`k${count - 1}`)).toBeDefined();
});

test('a blob larger than the whole budget is not kept, and evicts nothing', () => {
  const cache = new BoundedCodeCache(1024);
  cache.set('small', blob(512));
  cache.set('huge', blob(4096));
  expect(cache.get('huge')).toBeUndefined();
  expect(cache.get('small')).toBeDefined();
  expect(cache.bytes).toBe(512);
});

test('replacing a blob counts only the new one', () => {
  const cache = new BoundedCodeCache(1024);
  cache.set('a', blob(600));
  cache.set('a', blob(700));
  expect(cache.bytes).toBe(700);
  expect(cache.size).toBe(1);
});
