/** setTimeout, setInterval and their clear functions: ordering, cancellation, argument coercion. */
import { defineArea } from '../src/case.ts';

export default defineArea('timers', [
  {
    name: 'order-by-delay',
    quick: true,
    code: `async () => {
  const order = [];
  await new Promise((resolve) => {
    setTimeout(() => order.push('80'), 80);
    setTimeout(() => order.push('10'), 10);
    setTimeout(() => { order.push('120'); resolve(); }, 120);
    setTimeout(() => order.push('40'), 40);
  });
  return order;
}`,
  },
  {
    name: 'same-delay-fifo',
    code: `async () => {
  const order = [];
  await new Promise((resolve) => {
    for (let i = 0; i < 5; i++) setTimeout(() => order.push(i), 5);
    setTimeout(resolve, 30);
  });
  return order;
}`,
  },
  {
    name: 'clear-timeout',
    quick: true,
    code: `async () => {
  const fired = [];
  const a = setTimeout(() => fired.push('a'), 10);
  setTimeout(() => fired.push('b'), 10);
  clearTimeout(a);
  await new Promise((resolve) => setTimeout(resolve, 40));
  return fired;
}`,
  },
  {
    name: 'interval-three-ticks',
    code: `async () => {
  let ticks = 0;
  await new Promise((resolve) => {
    const id = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(id); resolve(); } }, 5);
  });
  await new Promise((resolve) => setTimeout(resolve, 30));
  return ticks;
}`,
  },
  {
    name: 'ids-are-increasing-numbers',
    code: `async () => {
  const a = setTimeout(() => {}, 1000);
  const b = setTimeout(() => {}, 1000);
  const c = setInterval(() => {}, 1000);
  [a, b].forEach(clearTimeout); clearInterval(c);
  return { types: [typeof a, typeof b, typeof c], increasing: a < b && b < c, positive: a > 0 };
}`,
  },
  {
    name: 'callback-arguments',
    code: `async () => new Promise((resolve) => setTimeout((x, y, z) => resolve([x, y, z]), 1, 'a', 2, { three: 3 }))`,
  },
  {
    name: 'timer-versus-microtask',
    code: `async () => {
  const order = [];
  setTimeout(() => order.push('timeout 0'), 0);
  Promise.resolve().then(() => order.push('promise'));
  queueMicrotask(() => order.push('microtask'));
  order.push('sync');
  await new Promise((resolve) => setTimeout(resolve, 20));
  return order;
}`,
  },
  {
    name: 'clear-timeout-stops-interval',
    code: `async () => {
  let count = 0;
  const id = setInterval(() => count++, 5);
  await new Promise((resolve) => setTimeout(resolve, 60));
  clearTimeout(id);
  const at = count;
  await new Promise((resolve) => setTimeout(resolve, 30));
  return { stopped: count === at, ranBefore: at > 0 };
}`,
  },
  {
    name: 'string-callback',
    code: `async () => {
  try { const id = setTimeout('globalThis.ran = true', 0); await new Promise((r) => setTimeout(r, 10)); return { id: typeof id, ran: globalThis.ran === true }; }
  catch (e) { return e.name + ': ' + e.message; }
}`,
  },
  {
    name: 'odd-delays-fire',
    code: `async () => {
  const fired = [];
  for (const [label, delay] of [['negative', -1], ['nan', NaN], ['undefined', undefined], ['string', 'abc'], ['null', null]]) setTimeout(() => fired.push(label), delay);
  await new Promise((resolve) => setTimeout(resolve, 30));
  return fired;
}`,
  },
  {
    name: 'numeric-string-delay',
    code: `async () => {
  const order = [];
  setTimeout(() => order.push('string 90'), '90');
  setTimeout(() => order.push('number 50'), 50);
  setTimeout(() => order.push('object 10'), { valueOf() { return 10; } });
  await new Promise((resolve) => setTimeout(resolve, 150));
  return order;
}`,
  },
  {
    name: 'unconvertible-delays',
    code: `async () => [10n, Symbol('s')].map((delay) => {
  try { setTimeout(() => {}, delay); return 'scheduled'; } catch (e) { return e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'clear-odd-arguments',
    code: `async () => [() => clearTimeout('bogus'), () => clearTimeout({}), () => clearTimeout(null), () => clearInterval(999999), () => clearTimeout()].map((f) => {
  try { return String(f()); } catch (e) { return e.name + ': ' + e.message; }
})`,
  },
  {
    name: 'sleep-helper-elapsed',
    code: `async () => {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const start = Date.now();
  await sleep(50);
  const elapsed = Date.now() - start;
  return { atLeast: elapsed >= 45, reasonable: elapsed < 1000 };
}`,
  },
  {
    name: 'race-tool-against-timeout',
    tools: ['echo'],
    code: `async () => {
  const timeout = (ms) => new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after ' + ms + ' ms')), ms));
  const fast = await Promise.race([echo.slow(5, 'fast answer'), timeout(500)]);
  try { await Promise.race([echo.slow(400, 'slow answer'), timeout(30)]); return { fast, slow: 'answered' }; }
  catch (e) { return { fast, slow: e.message }; }
}`,
  },
  {
    name: 'throwing-callback',
    code: `async () => {
  setTimeout(() => { throw new Error('timer exploded'); }, 0);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return 'still running';
}`,
  },
  {
    name: 'interval-with-async-work',
    tools: ['kv'],
    code: `async () => {
  const writes = [];
  await new Promise((resolve) => {
    let n = 0;
    const id = setInterval(() => {
      n++;
      writes.push(kv.set('tick' + n, n));
      if (n === 3) { clearInterval(id); resolve(); }
    }, 5);
  });
  await Promise.all(writes);
  return await kv.list();
}`,
  },
  {
    name: 'nested-timeouts',
    code: `async () => {
  const order = [];
  await new Promise((resolve) => {
    setTimeout(() => {
      order.push('outer');
      setTimeout(() => { order.push('inner 0'); resolve(); }, 0);
      Promise.resolve().then(() => order.push('outer microtask'));
    }, 0);
    setTimeout(() => order.push('sibling 100'), 100);
  });
  await new Promise((resolve) => setTimeout(resolve, 150));
  return order;
}`,
  },
  {
    name: 'huge-delays-do-not-fire',
    code: `async () => {
  const fired = [];
  const ids = [setTimeout(() => fired.push('infinity'), Infinity), setTimeout(() => fired.push('2^31'), 2 ** 31), setTimeout(() => fired.push('1e12'), 1e12)];
  await new Promise((resolve) => setTimeout(resolve, 50));
  ids.forEach(clearTimeout);
  return fired;
}`,
  },
  {
    name: 'pending-timer-after-return',
    code: `async () => {
  setTimeout(() => console.log('too late'), 200);
  console.log('returning');
  return 'done';
}`,
  },
]);
