/**
 * The host Worker of the differential suite (workerd side). It receives one case per request from
 * the suite, loads the case into a Worker of its own with the Worker Loader, and calls the case
 * Worker's harness over RPC, handing it a ToolDispatcher the way Cloudflare's
 * DynamicWorkerExecutor does. Nothing here runs inside the case's isolate.
 *
 *   GET  /__ready  answers "ready" once this Worker serves (the suite's readiness check)
 *   POST /run      { run, modules, harness, options } -> the case's envelope as codec JSON text,
 *                  or 500 with { harnessError } when the suite itself failed (not the case)
 */
import { RpcTarget } from 'cloudflare:workers';

/** Tool calls of one run, forwarded to the suite's fake on the loopback server. */
class ToolDispatcher extends RpcTarget {
  #tools;
  #run;

  constructor(tools, run) {
    super();
    this.#tools = tools;
    this.#run = run;
  }

  /** Answers the result envelope as JSON text, exactly as the executor's dispatch function does. */
  async call(provider, tool, argsJson) {
    const response = await this.#tools.fetch(`http://loopback/__tools/${encodeURIComponent(this.#run)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider, tool, args: argsJson }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`The suite's tool endpoint answered ${response.status}: ${text}`);
    return text;
  }
}

/** The Worker Loader's module form: a data module's bytes arrive as base64 and leave as an ArrayBuffer. */
function loaderModules(modules) {
  const out = {};
  for (const [name, module] of Object.entries(modules)) {
    if (typeof module === 'object' && module !== null && typeof module.data === 'string') {
      const binary = atob(module.data);
      const bytes = new Uint8Array(binary.length);
      for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
      out[name] = { data: bytes.buffer };
    } else {
      out[name] = module;
    }
  }
  return out;
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/__ready') return new Response('ready');
    if (url.pathname !== '/run' || request.method !== 'POST')
      return new Response('not found', { status: 404 });
    const spec = await request.json();
    try {
      // A fresh name per run: the loader caches Workers by name, and each case needs its own isolate.
      const worker = env.LOADER.get(spec.run, () => ({
        compatibilityDate: spec.compatibilityDate,
        compatibilityFlags: [],
        mainModule: spec.harness,
        modules: loaderModules(spec.modules),
        env: {},
        globalOutbound: env.NET,
      }));
      const envelope = await worker
        .getEntrypoint()
        .evaluate(new ToolDispatcher(env.TOOLS, spec.run), spec.options);
      return new Response(envelope, { headers: { 'content-type': 'application/json' } });
    } catch (error) {
      const harnessError =
        error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
      return Response.json({ harnessError }, { status: 500 });
    }
  },
};
