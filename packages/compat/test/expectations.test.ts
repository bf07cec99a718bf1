/** The ratchet's bookkeeping: what update mode keeps, adds and drops, and id checks. */
import { describe, expect, test } from 'vitest';
import { checkListings, UNCLASSIFIED, updatedExpectations } from '../src/expectations/file.ts';

const previous = {
  area: 'fetch' as const,
  differences: {
    'fetch/a': { deviation: 'fetch-redirect-error' },
    'fetch/b': { defect: 'fetch-error-texts' },
    'fetch/not-run': { defect: 'fetch-error-texts' },
    'fetch/removed-case': { defect: 'fetch-error-texts' },
  },
};

describe('updatedExpectations', () => {
  test('keeps listings that still differ, drops agreeing ones, adds new ones unclassified', () => {
    const next = updatedExpectations(
      previous,
      [
        { id: 'fetch/a', differs: true },
        { id: 'fetch/b', differs: false },
        { id: 'fetch/c', differs: true },
      ],
      ['fetch/a', 'fetch/b', 'fetch/c', 'fetch/not-run'],
    );
    expect(next.differences).toEqual({
      'fetch/a': { deviation: 'fetch-redirect-error' },
      'fetch/c': { defect: UNCLASSIFIED },
      'fetch/not-run': { defect: 'fetch-error-texts' },
    });
  });
});

describe('checkListings', () => {
  test('names listings whose id the catalog does not define, by kind', () => {
    const catalog = { deviations: { 'fetch-redirect-error': '...' }, defects: {} };
    expect(
      checkListings(
        {
          area: 'fetch',
          differences: {
            'fetch/a': { deviation: 'fetch-redirect-error' },
            'fetch/c': { defect: UNCLASSIFIED },
          },
        },
        catalog,
      ),
    ).toEqual(["fetch/c names the defect 'unclassified', which expectations/ids.json does not define"]);
  });
});
