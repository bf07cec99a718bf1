// The library door: IsolateExecutor in your own process. The program runs in a fresh V8 isolate in
// a child process; its tool calls cross back here, to the functions of `shop`.
import { IsolateExecutor } from '@supolka/codemode-executor';

const stock = { apples: 12, pears: 0, plums: 7 };
const shop = {
  list: () => Object.keys(stock),
  count: (name) => stock[name] ?? 0,
};

const executor = new IsolateExecutor({ poolSize: 1, timeout: 5_000 });
try {
  // A program as a model writes it: an async arrow that calls the tools and returns a value.
  const found = await executor.execute({
    code: `async () => {
      const names = await shop.list();
      const counts = await Promise.all(names.map((name) => shop.count(name)));
      console.log('checked', names.length, 'fruits');
      return names.filter((name, i) => counts[i] > 0);
    }`,
    providers: [{ name: 'shop', fns: shop }],
  });
  console.log(found);

  // execute never rejects: what ended the run comes back in the envelope.
  const failed = await executor.execute({
    code: `async () => {
      if ((await shop.count('pears')) === 0) throw new Error('out of pears');
    }`,
    providers: [{ name: 'shop', fns: shop }],
  });
  console.log({ error: failed.error, errorKind: failed.errorKind });

  // A run past its bound ends with a code the caller can branch on.
  const spun = await executor.execute({ code: 'async () => { for (;;) {} }', timeout: 200 });
  console.log({ code: spun.code });
} finally {
  await executor.dispose();
}
