// The "Issue 11 targets" table: each target of issue 11 as a ratio of two figures the bench files
// recorded in this run (bench/stats.ts, record), or of a figure and the fixed bound the issue names.
// docs/benchmarks.md says how to read it.

const MB = 2 ** 20;

/**
 * A figure a verdict can rest on: one with a numeric median. NaN is written as null (bench/stats.ts),
 * and null compares as 0, so a figure that could not be measured would otherwise read as met.
 */
const usable = (figure) =>
  typeof figure?.median === 'number' && Number.isFinite(figure.median) ? figure : undefined;

/**
 * The first of `keys` measured in this run: a floor measured in the same file as the figure it
 * divides, minutes closer to it on a busy machine, is preferred, and bench/floors.ts's stands in.
 */
const first = (figures, keys) =>
  keys.map((key) => usable(figures.get(key))).find((figure) => figure !== undefined);

/** A bare Node child's resident size at rest, plus the 30 MB the issue allows a pool child above it. */
function bareChildPlus30(figures) {
  const bare = first(figures, ['node.bareChildRss']);
  return bare === undefined ? undefined : fixed('bare Node child + 30 MB', bare.median + 30 * MB, 'bytes');
}

/** A constant baseline: a bound the issue states in absolute terms. */
const fixed = (name, median, unit) => ({ name, median, p99: null, samples: 0, unit });

/**
 * Each row: the figure measured, the baseline it is divided by (a key, a constant, or a function of
 * the figures) with a short label for the table, the target as text and the predicate on the ratio
 * that meets it.
 */
const TARGETS = [
  {
    row: 'tool call through the pool, per call, vs a plain Node child over stdio JSON',
    value: 'pool.toolCall',
    baseline: 'node.toolCall',
    label: 'plain Node child, stdio JSON, per call',
    target: '≤ 1.0x',
    met: (ratio) => ratio <= 1,
  },
  {
    row: 'the same, the two alternated round by round in one process (bench/tool-call-breakdown.ts)',
    value: 'breakdown.poolToolCall',
    baseline: 'breakdown.stdioToolCall',
    label: 'plain Node child, stdio JSON, per call, same rounds',
    target: '≤ 1.0x',
    met: (ratio) => ratio <= 1,
  },
  {
    row: 'tool call through the pool, per call, vs Worker Loader',
    value: 'pool.toolCall',
    baseline: 'workerd.toolCall',
    label: 'Worker Loader, RPC stub of the parent, per call',
    target: '< 0.8x',
    met: (ratio) => ratio < 0.8,
  },
  {
    row: 'tool call through the pool, per call, vs the floors (busy socket round trip + raw apply)',
    value: 'pool.toolCall',
    baseline: (figures) => {
      const socket = first(figures, ['node.socketRoundTrip']);
      const apply = first(figures, ['pool.rawApply', 'floors.rawApply']);
      if (socket === undefined || apply === undefined) return undefined;
      return fixed('socket round trip + raw apply', socket.median + apply.median, 'ms');
    },
    target: 'how close (report)',
    remainder: true,
  },
  {
    row: 'tool call inside the sandbox, in process, vs the raw apply',
    value: 'sandbox.toolCall',
    baseline: 'sandbox.rawApply',
    label: 'raw Reference.apply round trip',
    target: '≤ 1.3x',
    met: (ratio) => ratio <= 1.3,
  },
  {
    row: 'trivial execution through the pool, paced 20 ms, vs the raw floor',
    value: 'pool.paced',
    baseline: ['pool.rawFloor', 'floors.rawFloor'],
    label: 'raw floor (snapshot isolate + context + eval + dispose)',
    target: '≤ 0.3x',
    met: (ratio) => ratio <= 0.3,
  },
  {
    row: 'trivial execution through the pool, back to back, vs Worker Loader',
    value: 'pool.trivial',
    baseline: 'workerd.trivial',
    label: 'Worker Loader, trivial, back to back',
    target: '≤ 0.6x',
    met: (ratio) => ratio <= 0.6,
  },
  {
    row: 'throughput through the pool, 2 callers, vs Worker Loader',
    value: 'pool.throughput',
    baseline: 'workerd.throughput',
    label: 'Worker Loader, 2 callers',
    target: '≥ 1.2x',
    met: (ratio) => ratio >= 1.2,
  },
  {
    row: 'throughput through the pool, 2 callers, vs an in-process isolated-vm loop',
    value: 'pool.throughput',
    baseline: 'floors.rawThroughput',
    label: 'in-process isolated-vm loop over the snapshot, 2 callers',
    target: '≥ 0.9x',
    met: (ratio) => ratio >= 0.9,
  },
  {
    row: 'isolate + context from the runtime snapshot vs a bare isolate + context',
    value: 'runtime.restored',
    baseline: 'runtime.bare',
    label: 'bare isolate + context',
    target: '≤ 1.75x',
    met: (ratio) => ratio <= 1.75,
  },
  {
    row: 'startup snapshot size vs about 600 KB',
    value: 'runtime.snapshotBytes',
    baseline: () => fixed('600 KB (the issue)', 600 * 1024, 'bytes'),
    target: '≤ 1.0x',
    met: (ratio) => ratio <= 1,
  },
  {
    row: 'RSS per child at rest (6 s idle: the eraser thread ended) vs a bare Node child + 30 MB',
    value: 'memory.restRssEarly',
    baseline: bareChildPlus30,
    target: '≤ 1.0x',
    met: (ratio) => ratio <= 1,
  },
  {
    row: "RSS per child at rest (14 s idle: V8 freed that thread's heap pages), the same bound",
    value: 'memory.restRss',
    baseline: bareChildPlus30,
    target: '≤ 1.0x',
    met: (ratio) => ratio <= 1,
  },
  {
    row: 'RSS per child at rest after trivial runs only (bench/pool.ts), the same bound',
    value: 'pool.restRss',
    baseline: bareChildPlus30,
    target: '≤ 1.0x',
    met: (ratio) => ratio <= 1,
  },
  {
    row: 'memory growth over mixed executions (1000 unless BENCH_MEMORY_RUNS), from after warm-up',
    value: 'memory.growth',
    target: '≤ 15%',
    metValue: (growth) => growth <= 0.15,
  },
  {
    row: 'memory per prepared idle isolate (V8 heap used) vs the issue’s 2.36 MB',
    value: 'runtime.preparedHeap',
    baseline: () => fixed('2.36 MB (the issue, before)', 2.36 * MB, 'bytes'),
    target: '≤ 0.85x',
    met: (ratio) => ratio <= 0.85,
  },
];

function format(value, unit) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  switch (unit) {
    case '/s':
      return `${value.toFixed(0)}/s`;
    case 'bytes':
      return value >= MB ? `${(value / MB).toFixed(2)} MB` : `${(value / 1024).toFixed(0)} KB`;
    case 'ratio':
      return `${(value * 100).toFixed(1)}%`;
    default:
      return value < 1 ? `${(value * 1000).toFixed(1)} µs` : `${value.toFixed(3)} ms`;
  }
}

/** Median, and the p99 beside it where the figure has a tail. */
function measured(figure) {
  const median = format(figure.median, figure.unit);
  if (figure.unit === 'ratio') return `${median} over ${figure.samples} runs`;
  return figure.p99 === null || figure.p99 === undefined
    ? median
    : `${median} (p99 ${format(figure.p99, figure.unit)})`;
}

/** met or missed; for a row that only reports, how far the value stands above its baseline. */
function verdict(target, value, baseline, ratio) {
  if (ratio === undefined) return '—';
  if (target.remainder) return `${format(value.median - baseline.median, value.unit)} above`;
  return target.met(ratio) ? 'met' : 'missed';
}

/** Prints the targets table from the run's figures (a Map from key to recorded figure). */
export function printTargets(figures) {
  console.log(
    '\nIssue 11 targets (every figure from this run; "not measured" when its bench did not record it)',
  );
  console.log('| target | measured (median) | baseline | baseline value | ratio | target | met |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const target of TARGETS) {
    const value = usable(figures.get(target.value));
    const baseline =
      typeof target.baseline === 'function'
        ? target.baseline(figures)
        : target.baseline === undefined
          ? undefined
          : first(figures, [target.baseline].flat());
    const cells = [target.row];
    if (value === undefined) {
      cells.push(`not measured (${target.value})`);
    } else {
      cells.push(measured(value));
    }
    if (target.baseline === undefined) {
      cells.push('—', '—', '—', target.target);
      cells.push(value === undefined ? '—' : target.metValue(value.median) ? 'met' : 'missed');
    } else if (baseline === undefined) {
      const name =
        typeof target.baseline === 'function' ? 'its figures' : [target.baseline].flat().join(' or ');
      cells.push(`not measured (${name})`, '—', '—', target.target, '—');
    } else {
      const ratio = value === undefined ? undefined : value.median / baseline.median;
      cells.push(target.label ?? baseline.name, format(baseline.median, baseline.unit));
      cells.push(ratio === undefined ? '—' : `${ratio.toFixed(2)}x`, target.target);
      cells.push(verdict(target, value, baseline, ratio));
    }
    console.log(`| ${cells.join(' | ')} |`);
  }
}
