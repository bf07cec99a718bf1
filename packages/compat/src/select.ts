/**
 * Which cases a run executes. By default all of them; CODEMODE_COMPAT_QUICK=1 keeps the quick
 * subset (at least two cases per area); CODEMODE_COMPAT_CASES keeps those whose id equals or
 * starts with one of its comma-separated entries (`fetch`, `timers/`, `url/parse-relative`).
 */
import type { AreaCase } from './case.ts';

export interface Selection {
  readonly quick?: boolean;
  readonly filter?: string;
}

export function selectionFromEnv(env: NodeJS.ProcessEnv = process.env): Selection {
  return {
    quick: env.CODEMODE_COMPAT_QUICK === '1',
    ...(env.CODEMODE_COMPAT_CASES ? { filter: env.CODEMODE_COMPAT_CASES } : {}),
  };
}

export function selectCases(corpus: readonly AreaCase[], selection: Selection): AreaCase[] {
  const prefixes = (selection.filter ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return corpus.filter((item) => {
    if (selection.quick && !item.quick) return false;
    if (prefixes.length === 0) return true;
    return prefixes.some(
      (prefix) =>
        item.id === prefix ||
        item.id.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`) ||
        item.id.startsWith(prefix),
    );
  });
}
