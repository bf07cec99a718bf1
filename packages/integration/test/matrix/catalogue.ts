/**
 * The tools and the proxied outbound function every door of the path matrix serves, one catalogue
 * for all of them: the in-process doors import it, the CLI loads it as its --tools module, Deno
 * imports it as TypeScript, and the MCP fixture serves its single-object namespace as an MCP
 * server. It imports nothing and uses only erasable type syntax, so plain Node (type stripping)
 * and Deno load it as it is.
 *
 * Three hooks let a door see inside a run without timing it: `hangs` fires when a program reached
 * the tool that never answers (the cancellation row aborts then), `streamed` holds the console
 * lines a door's streaming callback delivered (the program waits for its own line there, so a line
 * streamed only with the envelope never arrives), and `nesting.run` is the door's own execute, which
 * the nesting tool calls from inside a tool call.
 */

/** The wire request and response of a proxied fetch (the protocol's HttpRequest and HttpResponse). */
interface WireRequest {
  readonly method: string;
  readonly url: string;
  readonly body: Uint8Array | null;
}
interface WireResponse {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array | null;
}

/** Fires 'called' each time a program reaches math.hang. */
export const hangs = new EventTarget();

/** How long a program waits for its own line to be streamed before it says it never was. */
const STREAM_PATIENCE = 10_000;

/** Console lines a door's streaming callback delivered, as the outcome's log strings. */
export const streamed = {
  lines: [] as string[],
  waiters: [] as { text: string; resolve: (seen: boolean) => void }[],
  push(line: string): void {
    this.lines.push(line);
    for (const waiter of this.waiters.splice(0)) {
      if (this.lines.includes(waiter.text)) waiter.resolve(true);
      else this.waiters.push(waiter);
    }
  },
  reset(): void {
    this.lines = [];
  },
  /** True once `text` was streamed; false if it was not within STREAM_PATIENCE. */
  waitFor(text: string): Promise<boolean> {
    if (this.lines.includes(text)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { text, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        resolve(false);
      }, STREAM_PATIENCE).unref?.();
    });
  },
};

/** The door's own execute, for a program that runs another program from a tool. */
export const nesting: { run?: (body: string) => Promise<unknown> } = {};

const fail = () => {
  throw new Error('the tool failed on purpose');
};

/**
 * How a tool pauses a durable run without importing a package: it throws an error carrying the
 * mark every pause signal carries (the protocol's pause-signal.ts), which the executor, the server
 * and the client each recognise, whichever copy of pause() made it.
 */
function pauseRun(data: unknown, reason: string): never {
  const signal = new Error('The tool asked to pause the run, but the run is not durable.');
  throw Object.assign(signal, { [Symbol.for('@supolka/codemode.pause')]: true, reason, data });
}

/** Every namespace a row may name; `providersNamed` picks them. */
export const providers = [
  {
    name: 'math',
    fns: {
      add: (a: number, b: number) => a + b,
      twice: (bytes: Uint8Array) => bytes.map((byte) => byte * 2),
      // Answers the arguments as they arrived, so a row sees what serialization changed.
      echo: (...args: unknown[]) => args,
      fail,
      hang: () => {
        hangs.dispatchEvent(new Event('called'));
        return new Promise(() => {});
      },
    },
  },
  {
    name: 'store',
    positionalArgs: false,
    fns: {
      describe: (args: { key: string; value: unknown }) => ({ got: args }),
      fail,
      // Never answers: the wall-clock rows' tool, reached through every door with tools (MCP too).
      hang: (_args: object) => new Promise(() => {}),
    },
  },
  {
    name: 'helpers',
    fns: { base: () => 21 },
    prelude: 'helpers.double = async () => (await helpers.base()) * 2;',
  },
  {
    name: 'custom',
    proxySource: 'const custom = { hello: (who) => "hello " + who + " from proxySource" };',
  },
  { name: 'probe', fns: { streamed: (text: string) => streamed.waitFor(text) } },
  {
    // Pauses every durable run that asks: a resume answers the call, so it is never performed again.
    name: 'approval',
    fns: { ask: (what: string, amount: number) => pauseRun({ what, amount }, 'approval') },
  },
  {
    name: 'nest',
    fns: {
      run: (body: string) => {
        if (nesting.run === undefined) throw new Error('this door runs no nested program');
        return nesting.run(body);
      },
    },
  },
];

export type ProviderName = 'math' | 'store' | 'helpers' | 'custom' | 'probe' | 'nest' | 'approval';

export function providersNamed(names: readonly ProviderName[]): typeof providers {
  return providers.filter((provider) => names.includes(provider.name as ProviderName));
}

export default providers;

/** The proxied outbound function: answers what it was asked, so a row sees the request crossed whole. */
export function proxiedFetch(request: WireRequest): WireResponse {
  const body = request.body === null ? '' : ` ${new TextDecoder().decode(request.body)}`;
  return {
    status: 200,
    statusText: 'OK',
    headers: [['content-type', 'text/plain']],
    body: new TextEncoder().encode(`proxied ${request.method} ${request.url}${body}`),
  };
}
