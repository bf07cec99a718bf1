/**
 * The agreement table: per area, how many cases ran, how many agree, how many differ as listed
 * (deliberate deviations and known defects apart), and how many fail the run.
 */
import { AREAS, type Area } from './case.ts';
import { listingKind } from './expectations/file.ts';
import type { CaseJudgement } from './judge.ts';

export interface AreaTally {
  cases: number;
  identical: number;
  deviations: number;
  defects: number;
  unlisted: number;
  stale: number;
  harnessErrors: number;
}

const empty = (): AreaTally => ({
  cases: 0,
  identical: 0,
  deviations: 0,
  defects: 0,
  unlisted: 0,
  stale: 0,
  harnessErrors: 0,
});

/** What the table needs of a judgement (the reporter receives only this, through task meta). */
export type Tallied = Pick<CaseJudgement, 'area' | 'outcome' | 'listing'>;

export function tally(judgements: readonly Tallied[]): Map<Area | 'total', AreaTally> {
  const rows = new Map<Area | 'total', AreaTally>();
  for (const judgement of judgements) {
    for (const key of [judgement.area, 'total'] as const) {
      const row = rows.get(key) ?? empty();
      rows.set(key, row);
      row.cases++;
      if (judgement.outcome === 'identical') row.identical++;
      else if (judgement.outcome === 'listed' && judgement.listing !== undefined) {
        if (listingKind(judgement.listing) === 'deviation') row.deviations++;
        else row.defects++;
      } else if (judgement.outcome === 'unlisted') row.unlisted++;
      else if (judgement.outcome === 'stale') row.stale++;
      else if (judgement.outcome === 'harness-error') row.harnessErrors++;
    }
  }
  return rows;
}

const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`;

/** The table as text; areas in the order, then the total. */
export function renderSummary(judgements: readonly Tallied[]): string {
  const rows = tally(judgements);
  const header = [
    'area',
    'cases',
    'identical',
    'agree',
    'deviations',
    'defects',
    'unlisted',
    'stale',
    'harness',
  ];
  const body: string[][] = [];
  for (const key of [...AREAS, 'total'] as const) {
    const row = rows.get(key);
    if (row === undefined) continue;
    body.push([
      key,
      String(row.cases),
      String(row.identical),
      percent(row.identical, row.cases),
      String(row.deviations),
      String(row.defects),
      String(row.unlisted),
      String(row.stale),
      String(row.harnessErrors),
    ]);
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...body.slice(0, -1).map(line), rule, ...body.slice(-1).map(line)].join('\n');
}
