/** queueMicrotask and promise jobs: ordering, errors thrown from microtasks, unhandled rejections. */
import { defineArea } from '../src/case.ts';

export default defineArea('microtasks', [
  {
    name: 'queue-versus-then',
    quick: true,
    code: `async () => {
  const order = [];
  queueMicrotask(() => order.push('q1'));
  Promise.resolve().then(() => order.push('p1'));
  queueMicrotask(() => order.push('q2'));
  order.push('sync');
  await null;
  await null;
  return order;
}`,
  },
  {
    name: 'nested-microtasks',
    quick: true,
    code: `async () => {
  const order = [];
  queueMicrotask(() => { order.push('a'); queueMicrotask(() => order.push('a-child')); });
  queueMicrotask(() => order.push('b'));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return order;
}`,
  },
  {
    name: 'non-function-refused',
    code: `async () => [5, 'x', undefined, null, {}].map((value) => {
  try { queueMicrotask(value); return 'queued'; } catch (e) { return e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'returns-undefined',
    code: `async () => ({ value: queueMicrotask(() => {}), name: queueMicrotask.name, type: typeof queueMicrotask })`,
  },
  {
    name: 'throwing-microtask-continues',
    code: `async () => {
  const order = [];
  queueMicrotask(() => { throw new Error('microtask failed'); });
  queueMicrotask(() => order.push('after'));
  await new Promise((resolve) => setTimeout(resolve, 10));
  return order;
}`,
  },
  {
    name: 'error-event-for-microtask',
    code: `async () => {
  const seen = [];
  addEventListener('error', (event) => { seen.push(event.message); event.preventDefault(); });
  queueMicrotask(() => { throw new TypeError('boom'); });
  await new Promise((resolve) => setTimeout(resolve, 10));
  return seen;
}`,
  },
  {
    name: 'await-chain-interleaving',
    code: `async () => {
  const order = [];
  const a = async () => { order.push('a1'); await null; order.push('a2'); await null; order.push('a3'); };
  const b = async () => { order.push('b1'); await null; order.push('b2'); };
  await Promise.all([a(), b()]);
  return order;
}`,
  },
  {
    name: 'thenable-extra-ticks',
    code: `async () => {
  const order = [];
  const thenable = { then(resolve) { order.push('then called'); resolve('thenable'); } };
  Promise.resolve(thenable).then((v) => order.push(v));
  Promise.resolve('plain').then((v) => order.push(v));
  queueMicrotask(() => order.push('queued'));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return order;
}`,
  },
  {
    name: 'microtasks-between-tool-calls',
    tools: ['math'],
    code: `async () => {
  const order = [];
  const first = math.add(1, 2).then((v) => order.push('tool ' + v));
  queueMicrotask(() => order.push('microtask'));
  order.push('sync');
  await first;
  order.push('after await');
  return order;
}`,
  },
  {
    name: 'unhandled-rejection-does-not-fail',
    code: `async () => {
  Promise.reject(new Error('nobody listens'));
  await new Promise((resolve) => setTimeout(resolve, 10));
  return 'completed';
}`,
  },
  {
    name: 'unhandled-rejection-event',
    code: `async () => {
  const seen = [];
  addEventListener('unhandledrejection', (event) => seen.push(event.type + ':' + event.reason.message));
  Promise.reject(new Error('lost'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  return seen;
}`,
  },
  {
    name: 'microtask-inside-timer',
    code: `async () => {
  const order = [];
  await new Promise((resolve) => {
    setTimeout(() => { order.push('t1'); queueMicrotask(() => order.push('t1 micro')); }, 0);
    setTimeout(() => { order.push('t2'); resolve(); }, 0);
  });
  return order;
}`,
  },
  {
    name: 'promise-combinators-order',
    code: `async () => {
  const order = [];
  const delays = [60, 10, 30];
  const results = await Promise.all(delays.map((ms) => new Promise((resolve) => setTimeout(() => { order.push(ms); resolve(ms * 2); }, ms))));
  const settled = await Promise.allSettled([Promise.reject(new Error('x')), Promise.resolve(1)]);
  const any = await Promise.any([Promise.reject(1), Promise.resolve('any')]);
  return { order, results, settled: settled.map((s) => s.status), any };
}`,
  },
  {
    name: 'deep-microtask-recursion',
    code: `async () => {
  let n = 0;
  await new Promise((resolve) => {
    const step = () => { n++; if (n < 10000) queueMicrotask(step); else resolve(); };
    queueMicrotask(step);
  });
  return n;
}`,
  },
  {
    name: 'async-iterators-and-generators',
    code: `async () => {
  async function* pages() { for (let p = 1; p <= 3; p++) { await null; yield { page: p, items: [p * 10, p * 10 + 1] }; } }
  const all = [];
  for await (const page of pages()) all.push(...page.items);
  return all;
}`,
  },
  {
    name: 'rejection-handled-late',
    code: `async () => {
  const p = Promise.reject(new Error('late'));
  await new Promise((resolve) => setTimeout(resolve, 10));
  try { await p; } catch (e) { return 'caught ' + e.message; }
  return 'not reached';
}`,
  },
  {
    name: 'no-node-scheduling',
    code: `async () => ({ nextTick: typeof process === 'undefined' ? 'no process' : typeof process.nextTick, setImmediate: typeof setImmediate })`,
  },
]);
