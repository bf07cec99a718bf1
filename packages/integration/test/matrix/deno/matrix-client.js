// The path matrix's rows run from Deno: the client's self-contained ESM file drives the server
// through Deno's own WebSocket, and the tools, the proxied fetch and the hooks come from the
// matrix's catalogue, which Deno imports as TypeScript. Arguments: the bundle's URL, the server's
// URL, the token, the catalogue's URL and the rows file (JSON). Prints one JSON line per row,
// [name, envelope, responses]; test/matrix/deno.test.ts reads them.
const [bundle, url, token, catalogueUrl, rowsFile] = Deno.args;
const { ExecutorClient } = await import(bundle);
const { hangs, nesting, providersNamed, proxiedFetch, streamed } = await import(catalogueUrl);
const rows = JSON.parse(await Deno.readTextFile(rowsFile));

const client = await ExecutorClient.connect(new WebSocket(url), { token });
const lineText = ({ level, text }) => (level === 'log' ? text : `[${level}] ${text}`);

async function run(row) {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('the matrix row cancelled it'));
  if (row.cancel) hangs.addEventListener('called', abort, { once: true });
  try {
    const outbound = row.outbound === 'proxied' ? proxiedFetch : row.outbound === 'native' ? undefined : null;
    const envelope = await client.execute(
      {
        code: row.code,
        providers: providersNamed(row.providers ?? []),
        outbound,
        ...(row.modules ? { modules: row.modules } : {}),
        ...(row.timeout ? { timeout: row.timeout } : {}),
        ...(row.memoryLimit ? { memoryLimit: row.memoryLimit } : {}),
        ...(row.consoleFormat ? { consoleFormat: row.consoleFormat } : {}),
        ...(row.invoke ? { retainHandles: true } : {}),
      },
      {
        signal: controller.signal,
        onConsole: (lines) => {
          for (const line of lines) streamed.push(lineText(line));
        },
      },
    );
    if (!row.invoke || envelope.executionId === undefined) return [envelope];
    const responses = [];
    for (const path of row.invoke) {
      const response = await client.invoke(envelope.executionId, new Request(`http://handler.test${path}`));
      responses.push(`${response.status} ${await response.text()}`);
    }
    await client.closeHandles(envelope.executionId);
    return [envelope, responses];
  } finally {
    hangs.removeEventListener('called', abort);
  }
}

nesting.run = async (body) => {
  const [nested] = await run({ code: `async () => {\n${body}\n}`, providers: ['math'] });
  if (nested.error !== undefined) throw new Error(nested.error);
  return nested.result;
};

for (const row of rows) {
  streamed.reset();
  console.log(JSON.stringify([row.name, ...(await run(row))]));
}
client.close();
