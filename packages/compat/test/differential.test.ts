/**
 * The differential suite: every selected case of the corpus runs in workerd and in the executor,
 * and the two envelopes are compared against expectations/<area>.json. A case fails when it
 * differs without a listing, when its listing is stale, or when the suite could not run it.
 */
import { Sandbox } from '@supolka/codemode-executor/sandbox';
import { afterAll, describe, inject, test } from 'vitest';
import { CORPUS } from '../cases/index.ts';
import { AREAS } from '../src/case.ts';
import {
  type CaseVerdict,
  checkListings,
  readAreaExpectations,
  readIdCatalog,
  updatedExpectations,
  writeAreaExpectations,
} from '../src/expectations/file.ts';
import { judgeCase } from '../src/judge.ts';
import { selectCases, selectionFromEnv } from '../src/select.ts';

const UPDATE = process.env.CODEMODE_COMPAT_UPDATE === '1';
/** Prints the diff of listed differences too (they pass, so nothing else shows them). */
const SHOW_LISTED = process.env.CODEMODE_COMPAT_SHOW === '1';
const compat = inject('compat');
const sandbox = new Sandbox();
afterAll(() => sandbox.dispose());

const context = { sandbox, workerdUrl: compat.workerdUrl, loopbackOrigin: compat.loopbackOrigin };
const selected = selectCases(CORPUS, selectionFromEnv());
const catalog = readIdCatalog();

/** A failure whose text is the whole story: no stack frames of the suite under it. */
function fail(report: string): never {
  const error = new Error(report);
  error.name = 'CompatDifference';
  error.stack = `${error.name}: ${report}`;
  throw error;
}

for (const area of AREAS) {
  const cases = selected.filter((item) => item.area === area);
  if (cases.length === 0) continue;
  describe(area, () => {
    const expectations = readAreaExpectations(area);
    const verdicts: CaseVerdict[] = [];

    test('expectations name only defined ids', () => {
      const problems = checkListings(expectations, catalog);
      if (problems.length > 0) fail(problems.join('\n'));
    });

    for (const item of cases) {
      test(item.name, async ({ task }) => {
        const judgement = await judgeCase(item, context, expectations);
        task.meta.compat = {
          area: judgement.area,
          outcome: judgement.outcome,
          ...(judgement.listing !== undefined ? { listing: judgement.listing } : {}),
        };
        if (judgement.outcome !== 'harness-error') verdicts.push({ id: item.id, differs: judgement.differs });
        if (judgement.outcome === 'harness-error') fail(judgement.report ?? 'harness error');
        if (SHOW_LISTED && judgement.outcome === 'listed') {
          console.log(`${item.id} (listed: ${JSON.stringify(judgement.listing)})\n${judgement.report ?? ''}`);
        }
        if (UPDATE) return;
        if (judgement.outcome === 'unlisted' || judgement.outcome === 'stale') fail(judgement.report ?? '');
      });
    }

    afterAll(() => {
      if (!UPDATE) return;
      const corpusIds = CORPUS.filter((item) => item.area === area).map((item) => item.id);
      writeAreaExpectations(updatedExpectations(expectations, verdicts, corpusIds));
    });
  });
}
