/**
 * The retained handler the host-call tests grant, over IsolateExecutor and over the server alike:
 * each invocation reads a key through the `kv` tool and fetches through the caller, so one response
 * shows both host calls reached the granting request's functions.
 */
export const TOOL_AND_FETCH = `async () => ({
  async fetch(request) {
    const key = new URL(request.url).pathname.slice(1)
    const value = await kv.get(key)
    const fetched = await (await fetch('https://upstream.test/' + key)).text()
    return new Response(value + ' ' + fetched)
  }
})`;
