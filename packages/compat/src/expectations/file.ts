/**
 * The expectations tree: expectations/<area>.json lists each case of the area that is known to
 * differ, and what the difference belongs to:
 *
 *   { "deviation": "<id>" }  a deliberate difference that docs/runtime-deviations.md defines;
 *   { "defect": "<id>" }     a runtime defect (often: the API is not built yet) to be fixed.
 *
 * Both kinds of id are defined once, with their sentence, in expectations/ids.json. The suite
 * fails on a difference the file does not list, and on a listed case that no longer differs;
 * update mode (CODEMODE_COMPAT_UPDATE=1) rewrites the files instead of failing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Area } from '../case.ts';

export type Listing =
  | { readonly deviation: string; readonly note?: string }
  | { readonly defect: string; readonly note?: string };

export interface AreaExpectations {
  readonly area: Area;
  readonly differences: Readonly<Record<string, Listing>>;
}

export interface IdCatalog {
  readonly deviations: Readonly<Record<string, string>>;
  readonly defects: Readonly<Record<string, string>>;
}

/** The id a new, unclassified difference gets in update mode, for a person to classify. */
export const UNCLASSIFIED = 'unclassified';

export const EXPECTATIONS_DIR = new URL('../../expectations/', import.meta.url);

const areaFile = (area: Area) => new URL(`${area}.json`, EXPECTATIONS_DIR);

export function readAreaExpectations(area: Area): AreaExpectations {
  try {
    const parsed = JSON.parse(readFileSync(areaFile(area), 'utf8')) as AreaExpectations;
    return { area, differences: parsed.differences ?? {} };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { area, differences: {} };
    throw error;
  }
}

export function readIdCatalog(): IdCatalog {
  return JSON.parse(readFileSync(new URL('ids.json', EXPECTATIONS_DIR), 'utf8')) as IdCatalog;
}

export function listingKind(listing: Listing): 'deviation' | 'defect' {
  return 'deviation' in listing ? 'deviation' : 'defect';
}

export function listingId(listing: Listing): string {
  return 'deviation' in listing ? listing.deviation : listing.defect;
}

/** Problems with the file itself: ids the catalog does not define. */
export function checkListings(expectations: AreaExpectations, catalog: IdCatalog): string[] {
  const problems: string[] = [];
  for (const [id, listing] of Object.entries(expectations.differences)) {
    const kind = listingKind(listing);
    const known = kind === 'deviation' ? catalog.deviations : catalog.defects;
    if (!Object.hasOwn(known, listingId(listing))) {
      problems.push(
        `${id} names the ${kind} '${listingId(listing)}', which expectations/ids.json does not define`,
      );
    }
  }
  return problems;
}

/** One case's verdict, as the runner records it for update mode and the summary. */
export interface CaseVerdict {
  readonly id: string;
  readonly differs: boolean;
}

/**
 * The area's file after a run: differing cases keep their listing (a new one is unclassified),
 * cases that now agree are dropped, and cases this run did not execute keep what they had,
 * unless they no longer exist in the corpus.
 */
export function updatedExpectations(
  previous: AreaExpectations,
  verdicts: readonly CaseVerdict[],
  corpusIds: readonly string[],
): AreaExpectations {
  const ran = new Map(verdicts.map((verdict) => [verdict.id, verdict.differs]));
  const differences: Record<string, Listing> = {};
  for (const id of corpusIds) {
    const differs = ran.get(id);
    const listing = previous.differences[id];
    if (differs === true) differences[id] = listing ?? { defect: UNCLASSIFIED };
    else if (differs === undefined && listing !== undefined) differences[id] = listing;
  }
  return { area: previous.area, differences };
}

export function writeAreaExpectations(expectations: AreaExpectations): void {
  writeFileSync(areaFile(expectations.area), `${JSON.stringify(expectations, null, 2)}\n`);
}
