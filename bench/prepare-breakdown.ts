/**
 * Where preparing one isolate goes, phase by phase: what prepareIsolate (sandbox/setup/prepared-isolate.ts)
 * does, step by step, and inside __prepareSandbox each install step and each part of the runtime's
 * second step (packages/runtime/src/index.ts), then the internal module and the disposal. Started
 * by `tools/run bench`.
 *
 * The steps inside the isolate are timed by the host: the snapshot here is the real one with a call
 * of a marking reference after each step (text inserted into the runtime bundle and the sandbox
 * source; this bench stops when a step's text changed), and each mark reads the host's clock. A mark
 * costs a crossing of its own, a few microseconds, charged to the step before it. Medians per phase
 * over BENCH_ITERATIONS isolates (at least 300), wall time; the row a phase's time moves to when
 * another step stops paying a first use (a table's growth, a shape's first transition) is the next
 * one that meets it, so compare totals, not single rows, across changes (docs/sandbox.md).
 */
import ivm from 'isolated-vm';
import {
  INTERNAL_FILENAME,
  INTERNAL_MODULE_SOURCE,
} from '../packages/executor/src/sandbox/entry/internal-module.ts';
import { RUNTIME_SOURCE } from '../packages/executor/src/sandbox/runtime.ts';
import { SANDBOX_SOURCE, WARMUP_SOURCE } from '../packages/executor/src/sandbox/setup/sandbox-source.ts';

const iterations = Math.max(300, Number(process.env.BENCH_ITERATIONS ?? 300));
const MARK = 'globalThis.__mark.applySync(void 0,[])';

/** The steps of the runtime's second step, each followed by a mark, as the bundle writes them. */
const SECOND_STEP = [
  'delete globalThis.__hostBindings',
  'connectGlobalEvents()',
  'connectHost(bindings)',
  'refuseWebAssembly()',
  'setMemoryLimit(bindings.memoryLimit)',
  'limitReservedMemory()',
  'limitWebAssemblyMemory()',
];
/** The install steps of __prepareSandbox (inside/prepare.ts), as the generated text writes them. */
const INSTALL_STEPS = [
  'delete globalThis.__prepareSandbox;',
  'connectConsole(consoleSink);',
  'bindings(runtime);',
  'timers(hostDelay);',
  'const answerDispatch = dispatch(hostDispatch);',
  'loader(hostLoad);',
  'completion(hostTimeout, hostResult);',
  'internals.sandbox = runSupport(internals, hostSignal);',
];

/** `text` with `marked` in place of `step`; stops when the step's text is not there. */
function mark(text: string, step: string, marked: string): string {
  if (!text.includes(step)) throw new Error(`The preparation no longer has ${step}: update this benchmark`);
  return text.replace(step, marked);
}

let runtime = RUNTIME_SOURCE;
for (const step of SECOND_STEP) {
  // The bundle writes the second step as one comma expression; the last step ends the function.
  const end = runtime.includes(`${step},`) ? ',' : '}';
  runtime = mark(runtime, `${step}${end}`, `${step},${MARK}${end}`);
}
let sandbox = SANDBOX_SOURCE;
for (const step of INSTALL_STEPS) sandbox = mark(sandbox, step, `${step}${MARK};`);
const snapshot = ivm.Isolate.createSnapshot(
  [
    { code: runtime, filename: 'codemode-runtime.js' },
    { code: sandbox, filename: 'codemode-sandbox.js' },
  ],
  // The warm-up's throwaway context has no marking reference: one that does nothing.
  `globalThis.__mark = { applySync() {} }; ${WARMUP_SOURCE}`,
);

const PHASES = [
  'new Isolate({ snapshot })',
  'createContextSync',
  'the globalThis alias',
  'host references and the runtime object (host side)',
  'into __prepareSandbox (the references cross)',
  '  the console sink',
  '  second step: into __hostBindings',
  '  second step: connectGlobalEvents',
  '  second step: connectHost',
  '  second step: refuseWebAssembly',
  '  second step: setMemoryLimit',
  '  second step: limitReservedMemory',
  '  second step: limitWebAssemblyMemory',
  '  second step: back',
  '  timers',
  '  dispatch',
  '  loader',
  '  completion names',
  '  run support',
  'out of __prepareSandbox',
  'the dispatch answer read',
  'internal module: compile',
  'internal module: instantiate',
  'internal module: evaluate',
  'dispose',
];

let marks: number[] = [];
const stamp = () => marks.push(performance.now());
const marking = new ivm.Reference(stamp);

/** One isolate prepared as prepareIsolate does, with the time at each phase's end. */
function prepareOne(): number[] {
  marks = [];
  stamp();
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot, onCatastrophicError: () => {} });
  stamp();
  const context = isolate.createContextSync();
  stamp();
  const jail = context.global;
  jail.setSync('globalThis', jail.derefInto());
  stamp();
  // The marking reference is set before this phase's clock starts again: its first crossing is its own.
  jail.setSync('__mark', marking);
  marks[marks.length - 1] = performance.now();
  const references = {
    randomUUID: new ivm.Reference(() => {}),
    randomBytes: new ivm.Reference(() => {}),
    performSubtleOperation: new ivm.Reference(() => {}),
    sendRequest: new ivm.Reference(() => {}),
    loadPiece: new ivm.Reference(() => {}),
  };
  const installArguments = [
    new ivm.Reference(() => {}),
    new ivm.ExternalCopy({ ...references, memoryLimit: 128 }).copyInto(),
    ...Array.from({ length: 6 }, () => new ivm.Reference(() => {})),
  ];
  stamp();
  const prepare = jail.getSync('__prepareSandbox', { reference: true });
  const installed = prepare.applySync(undefined, installArguments, { result: { reference: true } });
  stamp();
  installed.getSync('answerDispatch', { reference: true });
  installed.release();
  prepare.release();
  stamp();
  const internal = isolate.compileModuleSync(INTERNAL_MODULE_SOURCE, { filename: INTERNAL_FILENAME });
  stamp();
  internal.instantiateSync(context, () => {
    throw new Error('The sandbox module imports nothing.');
  });
  stamp();
  internal.evaluateSync();
  stamp();
  isolate.dispose();
  stamp();
  if (marks.length !== PHASES.length + 1) throw new Error(`${marks.length} marks: update this benchmark`);
  return marks;
}

const phases = PHASES.map(() => [] as number[]);
const totals: number[] = [];
for (let index = 0; index < 30; index++) prepareOne();
for (let index = 0; index < iterations; index++) {
  const times = prepareOne();
  for (let phase = 0; phase < PHASES.length; phase++)
    phases[phase]?.push((times[phase + 1] as number) - (times[phase] as number));
  totals.push((times[PHASES.length - 1] as number) - (times[0] as number));
}
marking.release();

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[samples.length >> 1] ?? Number.NaN;
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
console.log(`\nPreparing one isolate, phase by phase (Node ${process.version}; median of ${iterations} isolates, wall time, marks included)
| phase | median |
| --- | --- |`);
PHASES.forEach((name, phase) => {
  console.log(`| ${name} | ${us(median(phases[phase] as number[]))} |`);
});
console.log(`| whole preparation, isolate to evaluate (median of the totals) | ${us(median(totals))} |`);
console.log(
  `| sum of the medians, dispose included | ${us(phases.reduce((sum, samples) => sum + median(samples), 0))} |`,
);
