/**
 * One case, end to end: run it on both sides, normalise both records, compare, and weigh the
 * outcome against the area's expectations.
 */
import type { Sandbox } from '@supolka/codemode-executor/sandbox';
import type { AreaCase } from './case.ts';
import { differences, renderDifferences } from './compare/diff.ts';
import { normaliseRecord } from './compare/normalize.ts';
import { runOnExecutor } from './executor/side.ts';
import { type AreaExpectations, type Listing, listingId, listingKind } from './expectations/file.ts';
import { HarnessError, type RunRecord } from './record.ts';
import { runOnWorkerd } from './workerd/side.ts';

export interface JudgeContext {
  readonly sandbox: Sandbox;
  /** The host Worker's origin. */
  readonly workerdUrl: string;
  readonly loopbackOrigin: string;
}

/**
 * identical: both sides agree and nothing is listed. listed: they differ as the file says.
 * unlisted: they differ and the file does not say so. stale: the file lists a difference that is
 * gone. harness-error: the suite could not run one side.
 */
export type Outcome = 'identical' | 'listed' | 'unlisted' | 'stale' | 'harness-error';

export interface CaseJudgement {
  readonly id: string;
  readonly area: AreaCase['area'];
  readonly outcome: Outcome;
  readonly differs: boolean;
  readonly listing?: Listing;
  readonly workerd?: RunRecord;
  readonly executor?: RunRecord;
  /** For anything but identical: what a person needs to read to act on it. */
  readonly report?: string;
}

export async function judgeCase(
  item: AreaCase,
  context: JudgeContext,
  expectations: AreaExpectations,
): Promise<CaseJudgement> {
  const listing = expectations.differences[item.id];
  const base = { id: item.id, area: item.area, ...(listing !== undefined ? { listing } : {}) };
  let raw: [RunRecord, RunRecord];
  try {
    // Both sides at once: they share nothing but the loopback server, whose answers are fixed.
    raw = await Promise.all([
      runOnWorkerd(item, { url: context.workerdUrl, loopbackOrigin: context.loopbackOrigin }),
      runOnExecutor(item, context.sandbox, context.loopbackOrigin),
    ]);
  } catch (error) {
    const message =
      error instanceof HarnessError
        ? error.message
        : `the suite failed: ${String((error as Error)?.stack ?? error)}`;
    return { ...base, outcome: 'harness-error', differs: false, report: message };
  }
  const options = { loopbackOrigin: context.loopbackOrigin, ...(item.masks ? { masks: item.masks } : {}) };
  const workerd = normaliseRecord(raw[0], options);
  const executor = normaliseRecord(raw[1], options);
  const differs = differences(workerd, executor).length > 0;
  const records = { workerd, executor };
  if (!differs) {
    if (listing === undefined) return { ...base, outcome: 'identical', differs, ...records };
    return {
      ...base,
      outcome: 'stale',
      differs,
      ...records,
      report: `${item.id} is listed as the ${listingKind(listing)} '${listingId(listing)}' in expectations/${item.area}.json, but both runtimes now agree: remove the listing.`,
    };
  }
  const diff = renderDifferences(workerd, executor);
  if (listing !== undefined) return { ...base, outcome: 'listed', differs, ...records, report: diff };
  return {
    ...base,
    outcome: 'unlisted',
    differs,
    ...records,
    report: `${item.id} differs and expectations/${item.area}.json does not list it.\n  program:\n${indent(item.code)}\n${diff}`,
  };
}

const indent = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => `    | ${line}`)
    .join('\n');
