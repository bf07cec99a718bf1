/**
 * @supolka/codemode-compat: the workerd differential suite. The test suite under test/ is the
 * product; these exports let other suites (or a script) run programs on both sides the same way.
 */
export { AREAS, type Area, type AreaCase, type Case, defineArea, type InvokeRequest } from './case.ts';
export { differences, renderDifferences } from './compare/diff.ts';
export { type MaskName, normaliseRecord } from './compare/normalize.ts';
export { runOnExecutor } from './executor/side.ts';
export { type CaseJudgement, judgeCase, type Outcome } from './judge.ts';
export { type LoopbackServer, startLoopbackServer } from './loopback/server.ts';
export { HarnessError, type RunRecord } from './record.ts';
export { renderSummary } from './summary.ts';
export { FakeTools, type ProviderName } from './tools/fake.ts';
export { WorkerdProcess } from './workerd/process.ts';
export { runOnWorkerd } from './workerd/side.ts';
