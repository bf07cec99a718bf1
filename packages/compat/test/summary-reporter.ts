/**
 * Prints the agreement table after a run that judged cases. Each differential test leaves its
 * verdict in its task meta (test/differential.test.ts); the reporter only collects and prints.
 */
import type { Reporter, TestCase } from 'vitest/node';
import { renderSummary, type Tallied } from '../src/summary.ts';

declare module 'vitest' {
  interface TaskMeta {
    compat?: Tallied;
  }
}

export default class SummaryReporter implements Reporter {
  readonly #judged: Tallied[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const verdict = testCase.meta().compat;
    if (verdict !== undefined) this.#judged.push(verdict);
  }

  onTestRunEnd(): void {
    if (this.#judged.length === 0) return;
    process.stdout.write(
      `\nworkerd differential suite: agreement per area\n\n${renderSummary(this.#judged)}\n\n`,
    );
    this.#judged.length = 0;
  }
}
