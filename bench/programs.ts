/**
 * What the runtime snapshot costs the programs that run on it. Started by `tools/run bench`. The
 * snapshot keeps what a trivial program needs; the rest is compiled on first use (runtime pieces,
 * packages/runtime/src/pieces.ts), which every program using it pays, since each execution has a
 * fresh isolate. So the realistic program and the one that meets a piece are timed beside the
 * trivial one:
 *
 *   trivial       `async () => 1`
 *   realistic     fetch through proxied outbound, URL, TextEncoder, a Response body
 *   IDNA host     a URL whose host is not ASCII, which loads tr46 (a piece)
 *   streams       a ReadableStream piped through a TextEncoderStream into a Response, which
 *                 loads the streams polyfill (a piece)
 *   crypto        an HMAC key imported and a message signed, as a webhook check does, which
 *                 loads crypto.subtle's operations (a piece)
 *
 * Each figure is Sandbox.execute with a fresh isolate (prepareAhead off), so the isolate's
 * restoring is inside it, and paced with a prepared isolate (the default), where it is not.
 * Memory per prepared idle isolate is V8's used heap of a prepared isolate. Beside the wall time,
 * each row gives the process's CPU time per execution (every thread: isolated-vm runs isolates on
 * threads of its own), which a machine shared with other work disturbs less.
 */
import { Sandbox } from '../packages/executor/src/sandbox/index.ts';
import { readRuntimeSnapshot } from '../packages/executor/src/sandbox/runtime.ts';
import { prepareIsolate } from '../packages/executor/src/sandbox/setup/prepared-isolate.ts';
import { printTable, type Summary, summarize } from './stats.ts';

const iterations = Number(process.env.BENCH_ITERATIONS ?? 100);
const encoder = new TextEncoder();

const PROGRAMS = {
  trivial: { code: 'async () => 1' },
  realistic: {
    code: `async () => {
      const url = new URL('/v1/items?limit=10', 'https://api.example.com');
      url.searchParams.set('q', 'codemode');
      const response = await fetch(url, { method: 'POST', body: new TextEncoder().encode(JSON.stringify({ a: 1 })) });
      const data = await response.json();
      return [response.status, data.items.length, url.href.length];
    }`,
    outbound: () => ({
      status: 200,
      statusText: 'OK',
      headers: [['content-type', 'application/json']] as [string, string][],
      body: encoder.encode(JSON.stringify({ items: [1, 2, 3] })),
    }),
  },
  'IDNA host': { code: `async () => new URL('https://bücher.example/').host` },
  streams: {
    code: `async () => {
      const source = new ReadableStream({ start(controller) { controller.enqueue('chunk'); controller.close(); } });
      return (await new Response(source.pipeThrough(new TextEncoderStream())).text()).length;
    }`,
  },
  crypto: {
    code: `async () => {
      const encoder = new TextEncoder();
      const key = await crypto.subtle.importKey('raw', encoder.encode('secret'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return (await crypto.subtle.sign('HMAC', key, encoder.encode('{"event":"push"}'))).byteLength;
    }`,
  },
};

/** Wall and CPU milliseconds of each run, after `gapMs` of idle time before it. */
async function measure(name: string, run: () => Promise<unknown>, gapMs: number): Promise<Summary[]> {
  for (let index = 0; index < 5; index++) await run();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let index = 0; index < iterations; index++) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    await run();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return [summarize(`${name}, wall`, wall), summarize(`${name}, CPU`, cpu)];
}

const fresh = new Sandbox({ prepareAhead: false });
const prepared = new Sandbox();
const rows = [];
for (const [name, request] of Object.entries(PROGRAMS)) {
  const check = await fresh.execute(request);
  if (check.error !== undefined) throw new Error(`${name}: ${check.error}`);
  for (const summary of await measure(`${name}, fresh isolate`, () => fresh.execute(request), 0))
    rows.push({ summary });
  for (const summary of await measure(
    `${name}, prepared isolate, paced 20 ms`,
    () => prepared.execute(request),
    20,
  ))
    rows.push({ summary });
}
fresh.dispose();
prepared.dispose();

const idle = prepareIsolate({ memoryLimit: 128 });
const heap = idle.handle.isolate.getHeapStatisticsSync().used_heap_size;
idle.handle.isolate.dispose();

printTable(`Programs on the runtime snapshot (Node ${process.version})`, rows);
console.log(`\n| measurement | value |
| --- | --- |
| startup snapshot | ${(readRuntimeSnapshot().copy().byteLength / 1024).toFixed(0)} KB |
| heap used, prepared idle isolate | ${(heap / (1024 * 1024)).toFixed(2)} MB |`);
