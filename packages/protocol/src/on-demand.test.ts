import { describe, expect, test } from 'vitest';
import { decideOnDemand, onDemand } from './on-demand.ts';

describe('onDemand', () => {
  test('loads on the first call only, and callers during the load share it', async () => {
    let loads = 0;
    const schemas = onDemand(async () => ({ load: ++loads }));
    expect(loads).toBe(0);
    expect(schemas.loaded).toBeUndefined();
    const [first, second] = await Promise.all([schemas.load(), schemas.load()]);
    expect(first).toBe(second);
    expect(await schemas.load()).toBe(first);
    expect(schemas.loaded).toBe(first);
    expect(loads).toBe(1);
  });

  test('a load that failed is tried again by the next call', async () => {
    let loads = 0;
    const schemas = onDemand(async () => {
      loads++;
      if (loads === 1) throw new Error('no such module');
      return 'loaded';
    });
    await expect(schemas.load()).rejects.toThrow('no such module');
    expect(schemas.loaded).toBeUndefined();
    expect(await schemas.load()).toBe('loaded');
    expect(loads).toBe(2);
  });
});

describe('decideOnDemand', () => {
  test('waits for the first load, then decides in the call', async () => {
    const schemas = onDemand(async () => (value: number) => value * 2);
    const waited = decideOnDemand(schemas, (double) => double(2));
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe(4);
    expect(decideOnDemand(schemas, (double) => double(3))).toBe(6);
  });

  test("a load that failed is the message's fault, not a rejection", async () => {
    const schemas = onDemand<() => string>(async () => {
      throw new Error('zod is missing');
    });
    expect(await decideOnDemand(schemas, (decide) => decide())).toStrictEqual({
      ok: false,
      fault: { code: 'INTERNAL', message: 'The message schemas did not load: Error: zod is missing' },
    });
  });
});
