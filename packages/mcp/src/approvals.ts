/**
 * Which upstream calls leave without asking. A rule names a server and a tool as two separate
 * globs, so no part of one name can match the other: `"server.tool"` (split at its one dot) or
 * `"server"` (every tool of it) map to a decision, and `"server": { "tool": decision }` names the
 * parts apart, for names that hold dots themselves. A server glob is matched against the config's
 * key and the namespace (`my-server`, `my_server`), a tool glob against the upstream's name and the
 * function's (`get-item`, `get_item`). The most specific rule that matches wins (the most
 * characters that are not `*`, server and tool together); of equally specific ones, the strictest
 * (deny, then ask, then allow). No match: the default, `defaultApproval` (allow unless set).
 */
import type { ApprovalRules, Decision } from './config.ts';

export interface Verdict {
  readonly decision: Decision;
  /** The rule that decided, as the config writes it, for the message of a denial. */
  readonly rule: string;
}

/** One call's names, in every spelling a rule may use. */
export interface CallNames {
  /** The config key and the namespace. */
  readonly server: readonly string[];
  /** The upstream's tool name and the function name. */
  readonly tool: readonly string[];
}

const STRICTNESS: Readonly<Record<Decision, number>> = { allow: 0, ask: 1, deny: 2 };

interface Rule {
  readonly server: string;
  readonly tool: string;
  readonly decision: Decision;
  readonly shown: string;
  /** Characters that are not `*`: the more, the more specific. */
  readonly weight: number;
}

export class ApprovalPolicy {
  readonly #rules: readonly Rule[];
  readonly #fallback: Decision;

  constructor(approvals: ApprovalRules = {}, fallback: Decision = 'allow') {
    this.#fallback = fallback;
    this.#rules = Object.entries(approvals).flatMap(([key, value]) => {
      if (typeof value === 'string') {
        const [server, tool] = splitFlatKey(key);
        return [rule(server, tool, value, `${JSON.stringify(key)}: ${value}`)];
      }
      return Object.entries(value).map(([tool, decision]) =>
        rule(key, tool, decision, `${JSON.stringify(key)}: { ${JSON.stringify(tool)}: ${decision} }`),
      );
    });
  }

  /** Whether any call may be asked about: a rule says ask, or the default does. */
  get mayAsk(): boolean {
    return this.#fallback === 'ask' || this.#rules.some((rule) => rule.decision === 'ask');
  }

  decide(call: CallNames): Verdict {
    let best: Rule | undefined;
    for (const rule of this.#rules) {
      if (!call.server.some((name) => globMatches(rule.server, name))) continue;
      if (!call.tool.some((name) => globMatches(rule.tool, name))) continue;
      if (
        best === undefined ||
        rule.weight > best.weight ||
        (rule.weight === best.weight && STRICTNESS[rule.decision] > STRICTNESS[best.decision])
      ) {
        best = rule;
      }
    }
    return best === undefined
      ? { decision: this.#fallback, rule: `defaultApproval: ${this.#fallback}` }
      : { decision: best.decision, rule: best.shown };
  }

  /** The policy in one sentence, for the execute description: the model learns what will be refused. */
  describe(): string {
    const otherwise = FALLBACK_WORDS[this.#fallback];
    if (this.#rules.length === 0) return `Approval policy: every upstream call is ${otherwise}.`;
    const rules = this.#rules.map((rule) => rule.shown).join('; ');
    return `Approval policy (server and tool globs; the most specific rule decides; a call no rule names is ${otherwise}): ${rules}.`;
  }
}

const FALLBACK_WORDS: Readonly<Record<Decision, string>> = {
  allow: 'allowed',
  deny: 'denied',
  ask: "made only with the user's approval",
};

function rule(server: string, tool: string, decision: Decision, shown: string): Rule {
  const weight = server.replaceAll('*', '').length + tool.replaceAll('*', '').length;
  return { server, tool, decision, shown, weight };
}

/** `server.tool` at its first dot; a key without one names every tool of the server. */
export function splitFlatKey(key: string): readonly [string, string] {
  const dot = key.indexOf('.');
  return dot === -1 ? [key, '*'] : [key.slice(0, dot), key.slice(dot + 1)];
}

/**
 * Whether a flat key could be read two ways: with two dots or more (`fs.admin.*`: the tools
 * `admin.*` of `fs`, or the tools `*` of a server `fs.admin`), or with one whose whole key, read as
 * a server glob, names a configured server that has a dot in its name. Undefined when it is clear;
 * otherwise the two readings, the first dot's and the last's.
 */
export function ambiguousReadings(
  key: string,
  servers: readonly string[],
): readonly [readonly [string, string], readonly [string, string]] | undefined {
  const first = key.indexOf('.');
  if (first === -1) return undefined;
  const last = key.lastIndexOf('.');
  if (last !== first) return [splitFlatKey(key), [key.slice(0, last), key.slice(last + 1)]];
  if (servers.some((server) => server.includes('.') && globMatches(key, server))) {
    return [splitFlatKey(key), [key, '*']];
  }
  return undefined;
}

/**
 * `*` matches any run of characters, every other character itself. Greedy with one backtrack
 * point, so a pattern of many stars costs length × length at worst, never more.
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
