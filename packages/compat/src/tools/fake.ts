/**
 * The deterministic fake that serves tool calls on both sides. The executor side calls it in
 * process through the Sandbox's dispatch function; the workerd side reaches the same code over the
 * loopback server (src/loopback/server.ts). Either way one FakeTools instance serves one run, so
 * stateful tools (kv, files) start empty for each side of each case.
 *
 * Answers are the result envelope as JSON text, `{"result":...}` or `{"error":"..."}`, encoded
 * with the protocol's dispatch codec so binary values cross the same way they would in production.
 */
import { parseForDispatch, stringifyForDispatch } from '@supolka/codemode-protocol';

type Tool = (...args: never[]) => unknown;

interface Provider {
  /** Mirrors ProviderDescriptor.positionalArgs: false passes one object, otherwise the list. */
  readonly positionalArgs: boolean;
  readonly tools: (state: Map<string, unknown>) => Record<string, Tool>;
}

const ISSUES = [
  { number: 1, title: 'Crash on empty input', state: 'open', labels: ['bug'], comments: 3 },
  { number: 2, title: 'Add dark mode', state: 'open', labels: ['enhancement'], comments: 12 },
  { number: 3, title: 'Typo in README', state: 'closed', labels: ['docs'], comments: 0 },
  { number: 4, title: 'Slow startup on Windows', state: 'open', labels: ['bug', 'perf'], comments: 7 },
];

const USERS = [
  { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', active: true },
  { id: 2, name: 'Alan Turing', email: 'alan@example.com', active: false },
  { id: 3, name: 'Grace Hopper', email: 'grace@example.com', active: true },
];

/** Sleeps for real: the delay is the point of the slow tool (ordering against timers). */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const PROVIDERS = {
  github: {
    positionalArgs: false,
    tools: () => ({
      listIssues: ({ state }: { repo?: string; state?: string } = {}) =>
        ISSUES.filter((issue) => state === undefined || state === 'all' || issue.state === state),
      getIssue: ({ number }: { number: number }) => {
        const issue = ISSUES.find((item) => item.number === number);
        if (!issue) throw new Error(`Issue #${number} not found`);
        return issue;
      },
      createIssue: ({ title, body }: { title: string; body?: string }) => ({
        number: 101,
        title,
        body: body ?? '',
        url: 'https://github.example/acme/app/issues/101',
      }),
    }),
  },
  db: {
    positionalArgs: true,
    tools: () => ({
      query: (sql: string, params: unknown[] = []) => {
        if (!/^select/i.test(sql)) throw new Error(`Only SELECT is allowed, got: ${sql.split(' ')[0]}`);
        const active = params[0];
        return USERS.filter((user) => active === undefined || user.active === active);
      },
      count: (table: string) => (table === 'users' ? USERS.length : 0),
    }),
  },
  kv: {
    positionalArgs: true,
    tools: (state) => ({
      get: (key: string) => (state.has(key) ? state.get(key) : null),
      set: (key: string, value: unknown) => {
        state.set(key, value);
        return true;
      },
      list: () => [...state.keys()].sort(),
      delete: (key: string) => state.delete(key),
    }),
  },
  weather: {
    positionalArgs: false,
    tools: () => ({
      forecast: ({ city, days = 3 }: { city: string; days?: number }) => ({
        city,
        days: Array.from({ length: days }, (_, index) => ({
          day: index + 1,
          high: 20 + ((city.length + index * 3) % 9),
          low: 10 + ((city.length + index) % 5),
          rain: (city.length * (index + 1)) % 4 === 0,
        })),
      }),
      current: ({ city }: { city: string }) => {
        if (city === 'Atlantis') throw new Error('Unknown city: Atlantis');
        return { city, temperature: 18.5, unit: 'C', conditions: 'cloudy' };
      },
    }),
  },
  math: {
    positionalArgs: true,
    tools: () => ({
      add: (a: number, b: number) => a + b,
      divide: (a: number, b: number) => {
        if (b === 0) throw new Error('Division by zero');
        return a / b;
      },
      sum: (values: number[]) => values.reduce((total, value) => total + value, 0),
    }),
  },
  files: {
    positionalArgs: true,
    tools: (state) => ({
      read: (path: string) => {
        if (path === 'notes.txt') return 'buy milk\ncall Ada\n';
        if (state.has(`file:${path}`)) return state.get(`file:${path}`);
        throw new Error(`ENOENT: no such file '${path}'`);
      },
      write: (path: string, content: unknown) => {
        state.set(`file:${path}`, content);
        return { path, size: typeof content === 'string' ? content.length : 0 };
      },
      list: () => ['notes.txt', ...[...state.keys()].map((key) => key.slice(5))].sort(),
    }),
  },
  echo: {
    positionalArgs: true,
    tools: () => ({
      /** Returns its arguments as received: binary values included, through the codec. */
      back: (...args: unknown[]) => args,
      /** Answers after `ms` milliseconds of real time. */
      slow: async (ms: number, value: unknown) => {
        await sleep(ms);
        return value;
      },
      fail: (message: string) => {
        throw new Error(message);
      },
    }),
  },
} satisfies Record<string, Provider>;

export type ProviderName = keyof typeof PROVIDERS;

export const PROVIDER_NAMES = Object.keys(PROVIDERS) as ProviderName[];

/** The descriptor a request carries for a provider of the fake. */
export function providerDescriptor(name: ProviderName): { name: string; positionalArgs: boolean } {
  return { name, positionalArgs: PROVIDERS[name].positionalArgs };
}

/** The fake for one run. */
export class FakeTools {
  readonly #state = new Map<string, unknown>();

  /** Answers one tool call with the result envelope as JSON text; never rejects. */
  async dispatch(provider: string, tool: string, argsJson: string): Promise<string> {
    const entry = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider as ProviderName] : undefined;
    const tools = entry ? (entry.tools(this.#state) as Record<string, Tool>) : {};
    const fn = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
    if (!entry || !fn) return JSON.stringify({ error: `Tool ${provider}.${tool} not found` });
    try {
      const args = parseForDispatch(argsJson) as unknown;
      const result = await (entry.positionalArgs && Array.isArray(args)
        ? fn(...(args as never[]))
        : fn(args as never));
      return stringifyForDispatch({ result });
    } catch (error) {
      return JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
    }
  }
}
