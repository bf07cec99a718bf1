/**
 * The corpus and its expectations as data: the sizes issue 6 asks for, ids that are unique, a
 * quick subset that covers every area, and listings that name cases which exist.
 */
import { describe, expect, test } from 'vitest';
import { CORPUS } from '../cases/index.ts';
import { AREAS } from '../src/case.ts';
import { readAreaExpectations } from '../src/expectations/file.ts';
import { PROVIDER_NAMES } from '../src/tools/fake.ts';

describe('the corpus', () => {
  test('holds at least 300 cases, at least 15 in each area', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    for (const area of AREAS)
      expect(CORPUS.filter((item) => item.area === area).length, area).toBeGreaterThanOrEqual(15);
  });

  test('case ids are unique', () => {
    const ids = CORPUS.map((item) => item.id);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  test('the quick subset has at least two cases in every area', () => {
    for (const area of AREAS) {
      expect(CORPUS.filter((item) => item.area === area && item.quick).length, area).toBeGreaterThanOrEqual(
        2,
      );
    }
  });

  test('every program is an async arrow, after its imports', () => {
    for (const item of CORPUS) expect(item.code, item.id).toMatch(/(^|\n)async \(/);
  });

  test('cases name only providers the fake serves', () => {
    for (const item of CORPUS)
      for (const tool of item.tools ?? []) expect(PROVIDER_NAMES, item.id).toContain(tool);
  });
});

describe('the expectations', () => {
  test('list only cases of their own area that exist', () => {
    const ids = new Set(CORPUS.map((item) => item.id));
    for (const area of AREAS) {
      for (const id of Object.keys(readAreaExpectations(area).differences)) {
        expect(ids.has(id), `${id} in expectations/${area}.json`).toBe(true);
        expect(id.startsWith(`${area}/`), id).toBe(true);
      }
    }
  });
});
