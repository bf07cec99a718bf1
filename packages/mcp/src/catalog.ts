/**
 * Every upstream and its tools as the program sees them: one namespace per upstream, one function
 * per tool. The catalog renders the declarations the execute tool describes, answers search and
 * describe, and says which upstreams are not served and why.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { sanitizeToolName } from '@supolka/codemode-executor';
import { namespaceDeclaration, safeText, toolDeclaration } from '@supolka/codemode-executor/serving';
import type { Upstream } from './upstream.ts';

/**
 * Past this many characters of declarations, execute's description lists names only and the
 * search and describe tools are offered: a client keeps every tool description in the model's
 * context on every turn, and 16,000 characters (about 4,000 tokens) is as much as a few dozen
 * ordinary tool definitions, the point where one code tool stops saving context (docs/mcp.md).
 */
export const DESCRIPTION_CUTOVER = 16_000;
/** search answers at most this many tools. */
export const SEARCH_LIMIT = 20;

export interface CatalogEntry {
  readonly upstream: Upstream;
  readonly tool: Tool;
  /** `namespace.function`, as the program calls it. */
  readonly call: string;
}

/** One upstream tool with the names a program calls it by. */
export interface NamedTool {
  readonly tool: Tool;
  /** The function's name in its namespace: the tool's name made an identifier (sanitizeToolName). */
  readonly name: string;
  /** `namespace.function`, as the program calls it. */
  readonly call: string;
}

export class Catalog {
  readonly upstreams: readonly Upstream[];

  constructor(upstreams: readonly Upstream[]) {
    this.upstreams = upstreams;
  }

  entries(): CatalogEntry[] {
    return this.upstreams.flatMap((upstream) =>
      this.named(upstream).map(({ tool, call }) => ({ upstream, tool, call })),
    );
  }

  /**
   * Each upstream's tools named, made again only when its list of tools is a new one: every
   * execute serves each tool under these names, and naming them again in each execute cost the
   * bridge about 1 µs of CPU a tool, 3.5 ms of every trivial run with 3200 tools (docs/mcp.md, "Cost").
   */
  readonly #named = new WeakMap<readonly Tool[], readonly NamedTool[]>();

  named(upstream: Upstream): readonly NamedTool[] {
    let named = this.#named.get(upstream.tools);
    if (named === undefined) {
      named = upstream.tools.map((tool) => {
        const name = sanitizeToolName(tool.name);
        return { tool, name, call: `${upstream.namespace}.${name}` };
      });
      this.#named.set(upstream.tools, named);
    }
    return named;
  }

  /** Each upstream's declaration, made again only when its list of tools is a new one. */
  readonly #declared = new WeakMap<readonly Tool[], string>();

  /** Every namespace's declaration; upstreams with no tools listed yet are left out. */
  declarations(): string {
    return this.upstreams
      .filter((upstream) => upstream.tools.length > 0)
      .map((upstream) => {
        let text = this.#declared.get(upstream.tools);
        if (text === undefined) {
          text = namespaceDeclaration(upstream.namespace, upstream.tools, `The MCP server ${upstream.key}.`);
          this.#declared.set(upstream.tools, text);
        }
        return text;
      })
      .join('\n\n');
  }

  /** Lines naming the upstreams that are not served now, and why, made safe for the description. */
  unavailable(): string[] {
    return this.upstreams.flatMap((upstream) => {
      const state = upstream.state;
      // The reasons are sentences of their own; the list joins them with semicolons.
      if (state.kind === 'down')
        return [oneLine(`${upstream.namespace} (${upstream.key}): down, ${state.reason.replace(/\.$/, '')}`)];
      if (state.kind === 'connecting' && upstream.tools.length === 0)
        return [oneLine(`${upstream.namespace} (${upstream.key}): starting`)];
      return [];
    });
  }

  /**
   * Tools whose name or description holds every word of the query (case-insensitive), best first:
   * a word in the name counts more than one in the description.
   */
  search(query: string): CatalogEntry[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 20);
    const scored: { entry: CatalogEntry; score: number }[] = [];
    for (const entry of this.entries()) {
      const name = `${entry.call} ${entry.upstream.key}.${entry.tool.name}`.toLowerCase();
      const description = (entry.tool.description ?? '').slice(0, 4000).toLowerCase();
      let score = 0;
      for (const word of words) {
        if (name.includes(word)) score += 3;
        else if (description.includes(word)) score += 1;
        else score = Number.NEGATIVE_INFINITY;
      }
      if (score > 0 || words.length === 0) scored.push({ entry, score });
    }
    return scored
      .sort((a, b) => b.score - a.score)
      .slice(0, SEARCH_LIMIT)
      .map(({ entry }) => entry);
  }

  find(call: string): CatalogEntry | undefined {
    return this.entries().find(
      (entry) => entry.call === call || `${entry.upstream.key}.${entry.tool.name}` === call,
    );
  }

  describe(entry: CatalogEntry): string {
    return `declare const ${entry.upstream.namespace}: {\n${toolDeclaration(entry.tool)}\n};`;
  }
}

/** The list sits outside the code block, one line: a reason's own lines could pose as the description's. */
function oneLine(text: string): string {
  return safeText(text).replaceAll('\n', ' ');
}
