/**
 * acorn, with its scope bookkeeping made linear. acorn keeps each scope's declared names in plain
 * arrays and looks every new declaration up with `indexOf`, so a program's cost grows with the
 * square of its declarations: 40,000 `let` statements (780 KB) took 5 s, one destructuring of
 * 40,000 names (270 KB) 21 s, and an `export { ... }` of 40,000 names 15 s, all in the caller's own
 * process, where the Code Mode normalizer reads the code before any bound applies. The scopes here
 * keep the same arrays with a map from each name to its first index beside them, so a lookup is
 * O(1) and every answer is the one the array would give.
 */
import { Parser } from 'acorn';

/** A scope's list of names that answers `indexOf` from a map instead of a scan. */
class NameList extends Array<string> {
  readonly #first = new Map<string, number>();

  override push(...names: string[]): number {
    for (const name of names) {
      if (!this.#first.has(name)) this.#first.set(name, this.length);
      super.push(name);
    }
    return this.length;
  }

  override indexOf(name: string): number {
    return this.#first.get(name) ?? -1;
  }
}

interface AcornScope {
  var: string[];
  lexical: string[];
  functions: string[];
}

/** The members of acorn's parser this file reaches, which its typings do not declare. */
interface ScopedParser {
  enterScope(flags: number): void;
  currentScope(): AcornScope;
}

/**
 * The Parser with every scope's name lists replaced as the scope opens; `parse` on it takes the
 * same options and gives the same tree as acorn's own.
 */
export const LinearParser = Parser.extend(
  (Base) =>
    class extends (Base as unknown as new (...args: unknown[]) => ScopedParser) {
      override enterScope(flags: number): void {
        super.enterScope(flags);
        const scope = this.currentScope();
        scope.var = new NameList();
        scope.lexical = new NameList();
        scope.functions = new NameList();
      }
    } as unknown as typeof Base,
);
