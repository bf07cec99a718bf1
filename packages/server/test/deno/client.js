// A Deno program driving the executor server through Deno's own WebSocket, importing nothing but
// the client's self-contained ESM file (its path is the first argument, the server's URL the
// second, the token the third). It prints one JSON line per step; test/server/deno.test.ts reads them.
const [bundle, url, token] = Deno.args;
const { ExecutorClient } = await import(bundle);

const print = (step, value) => console.log(JSON.stringify([step, value]));
const bytes = (value) => (value instanceof Uint8Array ? [...value] : value);

// The first-message authentication: a browser-style WebSocket cannot set headers.
const refused = await ExecutorClient.connect(new WebSocket(url), { token: 'not-the-token-at-all' }).catch(
  (error) => `${error.name} ${error.code}: ${error.message}`,
);
print('wrong token', refused);

// Deno's WebSocket also takes headers: a wrong token there reaches the client as the server's
// sentence, not as a bare close with 1006.
const refusedAtUpgrade = await ExecutorClient.connect(
  new WebSocket(url, { headers: { authorization: 'Bearer not-the-token-at-all' } }),
).catch((error) => `${error.name} ${error.code}: ${error.message}`);
print('wrong token in the upgrade', refusedAtUpgrade);

const client = await ExecutorClient.connect(new WebSocket(url), { token });

const served = await client.execute({
  code: `async () => {
    const runtime = await host.runtime();
    const echoed = await host.echo(new Uint8Array([7, 8, 9]));
    const page = await (await fetch('https://api.test/page')).text();
    return { runtime, echoed, page };
  }`,
  providers: [
    {
      name: 'host',
      fns: {
        runtime: () => (typeof Deno.version.deno === 'string' ? 'deno' : 'unknown'),
        echo: (value) => value.map((byte) => byte * 2),
      },
    },
  ],
  outbound: (request) => new Response(`served in deno for ${request.url}`),
});
print('tools and fetch', { ...served, result: { ...served.result, echoed: bytes(served.result.echoed) } });

const thrown = await client.execute({
  code: 'async () => host.fail()',
  providers: [
    {
      name: 'host',
      fns: {
        fail: () => {
          throw new Error('failed in deno');
        },
      },
    },
  ],
});
print('a tool that throws', thrown);

let called;
const calledOnce = new Promise((resolve) => {
  called = resolve;
});
const controller = new AbortController();
const cancelled = client.execute(
  {
    code: 'async () => host.wait()',
    providers: [
      {
        name: 'host',
        fns: {
          wait: () => {
            called();
            return new Promise(() => {});
          },
        },
      },
    ],
  },
  { signal: controller.signal },
);
await calledOnce;
controller.abort();
print('cancelled', await cancelled);

const retained = await client.execute({
  code: 'async () => ({ fetch: async (request) => new Response("handled " + (await request.text())) })',
  retainHandles: true,
});
const response = await client.invoke(
  retained.executionId,
  new Request('https://h.test/', { method: 'POST', body: 'deno' }),
);
print('invoke', [response instanceof Response, response.status, await response.text()]);
await client.closeHandles(retained.executionId);

client.close();
print('after close', await client.execute({ code: 'async () => 1' }));
