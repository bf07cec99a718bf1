/**
 * Which upstream calls leave without asking. The config's `approvals` maps globs on `server.tool`
 * to allow, deny or ask; a pattern is matched against the call both as the config and the upstream
 * spell it (`my-server.get-item`) and as the program calls it (`my_server.get_item`). The most
 * specific pattern that matches wins (the most characters that are not `*`); of equally specific
 * ones, the strictest (deny, then ask, then allow). No match: allow.
 */
import type { Decision } from './config.ts';

export interface Verdict {
  readonly decision: Decision;
  /** The pattern that decided, or undefined for the default. */
  readonly pattern: string | undefined;
}

const STRICTNESS: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, deny: 2 };

interface Rule {
  readonly pattern: string;
  readonly decision: Decision;
  /** Characters that are not `*`: the more, the more specific. */
  readonly weight: number;
}

export class ApprovalPolicy {
  readonly #rules: readonly Rule[];

  constructor(approvals: Readonly<Record<string, Decision>> = {}) {
    this.#rules = Object.entries(approvals).map(([pattern, decision]) => ({
      pattern,
      decision,
      weight: pattern.replaceAll('*', '').length,
    }));
  }

  /** `spellings`: the call's names, e.g. the raw `server.tool` and the sanitized one. */
  decide(spellings: readonly string[]): Verdict {
    let best: Rule | undefined;
    for (const rule of this.#rules) {
      if (!spellings.some((name) => globMatches(rule.pattern, name))) continue;
      if (
        best === undefined ||
        rule.weight > best.weight ||
        (rule.weight === best.weight && STRICTNESS[rule.decision] > STRICTNESS[best.decision])
      ) {
        best = rule;
      }
    }
    return best === undefined
      ? { decision: 'allow', pattern: undefined }
      : { decision: best.decision, pattern: best.pattern };
  }
}

/**
 * `*` matches any run of characters (dots included), every other character itself. Greedy with
 * one backtrack point, so a pattern of many stars costs length × length at worst, never more.
 */
export function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let resume = 0;
  while (n < name.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.length && pattern[p] === name[n]) {
      p++;
      n++;
    } else if (star !== -1) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}
