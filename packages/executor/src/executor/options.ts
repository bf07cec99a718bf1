/**
 * IsolateExecutor's options: their defaults, and the checks that refuse a bad one at construction
 * with a message naming the option, the rule and the value, so a typo fails where it was written
 * and not in the first execution.
 */

import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  BadRequestError,
  CONSOLE_FORMATS,
  type ConsoleFormat,
  DEFAULT_HANDLES_IDLE_TIMEOUT,
  DEFAULT_MEMORY_LIMIT,
  DEFAULT_TIMEOUT,
  MAX_DELAY,
  MAX_MEMORY_LIMIT,
  MIN_MEMORY_LIMIT,
  type ModuleMap,
  type OutboundSetting as OutboundSettingOf,
  outboundMode,
} from '@supolka/codemode-protocol/wire';
import { type CacheOption, cacheFolder, childCacheFolders } from '../cache/cache-option.ts';
import { PACKAGES_CACHE_FOLDER } from '../cache/cache-root.ts';
import type { DurabilityOptions } from '../durable/durability.ts';
import type { PackageList } from '../packages/bundler.ts';
import type { PoolEvent } from '../pool/events.ts';
import type { PoolOptions } from '../pool/pool.ts';
import { startOneChildFirst } from '../pool/supervision.ts';
import type { OutboundFunction } from '../sandbox/fetch.ts';
import type { OwnEndpoint } from '../sandbox/outbound/address-policy.ts';
import { warmWindow } from '../sandbox/setup/warm-window.ts';
import {
  DEFAULT_CHILD_EXEC_ARGV,
  DEFAULT_CHILD_RSS_LIMIT,
  DEFAULT_GRACE,
  DEFAULT_HEARTBEAT_INTERVAL,
  DEFAULT_HEARTBEAT_TIMEOUT,
  DEFAULT_KILL_TIMEOUT,
  DEFAULT_MAX_CHILD_AGE,
  DEFAULT_MAX_EXECUTIONS_PER_CHILD,
  DEFAULT_MAX_RETAINED_PER_CHILD,
  DEFAULT_QUEUE_LIMIT,
  DEFAULT_START_TIMEOUT,
} from './defaults.ts';
import { DurableRuns } from './durable-runs.ts';
import { checkModulesOption } from './modules-option.ts';
import type { ExecutionObserver } from './observer.ts';

/**
 * The outbound tri-state: `null` disables fetch, a function of the wire request proxies it through
 * the caller, and `undefined` written explicitly has the executor perform it natively.
 */
export type OutboundSetting = OutboundSettingOf<OutboundFunction>;

export interface IsolateExecutorOptions {
  /** Run bound in ms, on the run clock (default 60000). A request's own `timeout` wins. */
  readonly timeout?: number;
  /**
   * Wall-clock time one execution may take, queued, running and waiting on tools, in ms; and one
   * invocation of a retained handler, running and waiting on tools. Past it the call ends with
   * TIMEOUT (default: twice the call's own run bound, and at least 120000).
   */
  readonly wallClockLimit?: number;
  /** Isolate memory limit in MB (default 128). A request's own `memoryLimit` wins. */
  readonly memoryLimit?: number;
  /** Headroom past the bound for the engine's timer and the host race, in ms (default 1000). */
  readonly grace?: number;
  /** Child processes (default: the machine's cores). */
  readonly poolSize?: number;
  /** Executions that may wait for a child; past it execute answers OVERLOADED (default 256). */
  readonly queueLimit?: number;
  /** Service life: executions a child serves before it retires once idle (default 1000). */
  readonly maxExecutionsPerChild?: number;
  /** Service life: ms a child serves before it retires once idle (default 30 minutes). */
  readonly maxChildAge?: number;
  /** How often each child is asked for its health, in ms (default 1000). */
  readonly heartbeatInterval?: number;
  /** How long a heartbeat may go unanswered before the child is replaced, in ms (default 5000). */
  readonly heartbeatTimeout?: number;
  /** How long a child has after SIGTERM before SIGKILL, in ms (default 2000). */
  readonly killTimeout?: number;
  /** Resident memory in MB past which an idle child is recycled (default 1024). */
  readonly childRssLimit?: number;
  /** Retained executions one child may hold (default 16). */
  readonly maxRetainedPerChild?: number;
  /** How long a retained execution may go without an invocation before it is closed, in ms (default 60000). */
  readonly handlesIdleTimeout?: number;
  /** Let native outbound requests reach link-local addresses (cloud metadata endpoints); default false. */
  readonly allowLinkLocal?: boolean;
  /** Let native outbound requests reach loopback addresses and `localhost` names; default false. */
  readonly allowLoopback?: boolean;
  /** Let native outbound requests reach private addresses (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7); default false. */
  readonly allowPrivate?: boolean;
  /** Endpoints native outbound requests never reach, whatever the opt-ins: the server passes its own listen addresses. */
  readonly ownEndpoints?: readonly OwnEndpoint[];
  /** The outbound mode of a request that has no `outbound` key (default null: no network). */
  readonly outbound?: OutboundSetting;
  /** Modules every request gets, under the request's own (whose keys win). */
  readonly modules?: ModuleMap;
  /**
   * The npm packages programs may import (docs/packages.md): names, found the way Node finds them
   * from `packagesBase`, or name → the package's directory. Bundled once, by
   * @supolka/codemode-packages, when the executor is constructed; a request's module map key of
   * the same name wins. A package that cannot be bundled fails every execution with BAD_REQUEST
   * naming why, and `packages()` rejects with the same sentence.
   */
  readonly packages?: PackageList;
  /** The folder `packages` are found from and relative directories resolve against (default: the working directory). */
  readonly packagesBase?: string;
  /**
   * Which packages each child holds ready in the isolate it prepares for its next run
   * (docs/packages.md): true (the default) those the last 16 runs it served imported, a whole
   * number those the last that many runs imported, false or 0 none. A warmed package's code runs
   * off the request's path, and its heap counts against the next program's memory limit whether
   * that program imports it or not.
   */
  readonly warmPackages?: boolean | number;
  /**
   * Erase TypeScript types from the code and from `.ts` modules (default true). A request's own
   * `typescript` wins; `false` runs sources exactly as written.
   */
  readonly typescript?: boolean;
  /**
   * How console.log, warn and error format their arguments when a request does not say (default
   * 'string': String of each argument, single spaces); 'inspect' formats as workerd's console
   * does. A request's own `consoleFormat` wins.
   */
  readonly consoleFormat?: ConsoleFormat;
  /**
   * Whether pool children keep their start (the runtime snapshot and the engine report) on disk for
   * the next process, and where (docs/pool.md, "The start cache on disk"): true (default) keeps it
   * in the user's cache folder unless CODEMODE_CACHE=off (CODEMODE_CACHE_DIR names another folder),
   * false keeps nothing, `{ directory }` keeps it there whatever the environment says. A folder
   * that fails its trust checks turns the cache off with a warning.
   */
  readonly cache?: CacheOption;
  /** Node flags of the children (default `['--no-node-snapshot', '--no-wasm-code-gc', '--max-semi-space-size=1']`: the first two every child needs, adr/0002; the third keeps its own heap small). */
  readonly childExecArgv?: readonly string[];
  /** Supervision events: forks, health, retirements, terminations, exits. */
  readonly onPoolEvent?: (event: PoolEvent) => void;
  /** What each execution cost, once it has its envelope (observer.ts); a throw is dropped. */
  readonly onExecution?: ExecutionObserver;
  /**
   * Durable runs (docs/durable.md): the key ring their tokens are sealed with, and the token's
   * options (`ttl`, `maxJournalLength`, `claims`). Without it a durable request or a resume is
   * refused with BAD_REQUEST.
   */
  readonly durable?: DurabilityOptions;
}

export interface ResolvedOptions {
  readonly timeout: number;
  /** Undefined: each call's bound is twice its own run bound (wall-clock.ts). */
  readonly wallClockLimit: number | undefined;
  readonly memoryLimit: number;
  readonly outbound: OutboundSetting;
  readonly modules: ModuleMap;
  /**
   * The packages to bundle, the folder they are found from, and the trusted folder their bundles
   * are kept in between processes (undefined when the caches are off); undefined when none are allowed.
   */
  readonly packages:
    | { readonly list: PackageList; readonly base: string; readonly cache: string | undefined }
    | undefined;
  readonly typescript: boolean;
  readonly consoleFormat: ConsoleFormat | undefined;
  readonly onExecution: ExecutionObserver | undefined;
  readonly durable: DurableRuns;
  readonly pool: PoolOptions;
}

type WholeNumberOption = {
  [Key in keyof IsolateExecutorOptions]-?: IsolateExecutorOptions[Key] extends number | undefined
    ? Key
    : never;
}[keyof IsolateExecutorOptions];

/** The most children a pool may keep: the command lines check their --pool-size against it too. */
export const MAX_POOL_SIZE = 1024;

/** The range each whole-number option accepts, and its default (none: the option's default depends on the call). */
const RANGES: Record<
  WholeNumberOption,
  readonly [min: number, max: number, fallback: (() => number) | undefined]
> = {
  timeout: [1, MAX_DELAY, () => DEFAULT_TIMEOUT],
  wallClockLimit: [1, MAX_DELAY, undefined],
  memoryLimit: [MIN_MEMORY_LIMIT, MAX_MEMORY_LIMIT, () => DEFAULT_MEMORY_LIMIT],
  grace: [0, MAX_DELAY, () => DEFAULT_GRACE],
  poolSize: [1, MAX_POOL_SIZE, () => availableParallelism()],
  queueLimit: [0, 1_000_000, () => DEFAULT_QUEUE_LIMIT],
  maxExecutionsPerChild: [1, Number.MAX_SAFE_INTEGER, () => DEFAULT_MAX_EXECUTIONS_PER_CHILD],
  maxChildAge: [1, Number.MAX_SAFE_INTEGER, () => DEFAULT_MAX_CHILD_AGE],
  heartbeatInterval: [1, MAX_DELAY, () => DEFAULT_HEARTBEAT_INTERVAL],
  heartbeatTimeout: [1, MAX_DELAY, () => DEFAULT_HEARTBEAT_TIMEOUT],
  killTimeout: [1, MAX_DELAY, () => DEFAULT_KILL_TIMEOUT],
  childRssLimit: [1, Number.MAX_SAFE_INTEGER, () => DEFAULT_CHILD_RSS_LIMIT],
  maxRetainedPerChild: [1, 1_000_000, () => DEFAULT_MAX_RETAINED_PER_CHILD],
  handlesIdleTimeout: [1, MAX_DELAY, () => DEFAULT_HANDLES_IDLE_TIMEOUT],
};

const OTHER_OPTIONS = [
  'outbound',
  'allowLinkLocal',
  'allowLoopback',
  'allowPrivate',
  'ownEndpoints',
  'modules',
  'packages',
  'packagesBase',
  'warmPackages',
  'typescript',
  'consoleFormat',
  'childExecArgv',
  'cache',
  'onPoolEvent',
  'onExecution',
  'durable',
] as const;
const KNOWN = new Set<string>([...Object.keys(RANGES), ...OTHER_OPTIONS]);

export class OptionError extends BadRequestError {
  override name = 'OptionError';
  readonly option: string;
  constructor(option: string, rule: string, value?: unknown) {
    super(`IsolateExecutor option ${option} ${rule}${value === undefined ? '' : `; got ${show(value)}`}.`);
    this.option = option;
  }
}

export function resolveOptions(options: IsolateExecutorOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new BadRequestError(`IsolateExecutor options must be an object; got ${show(options)}.`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new OptionError(key, 'is not a known option');
  }
  const optionalNumber = (name: WholeNumberOption): number | undefined => {
    const [min, max, fallback] = RANGES[name];
    const value: unknown = options[name];
    if (value === undefined) return fallback?.();
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new OptionError(name, `must be a whole number from ${min} to ${max}`, value);
    }
    return value;
  };
  const number = (name: WholeNumberOption): number => optionalNumber(name) as number;
  const heartbeatInterval = number('heartbeatInterval');
  const heartbeatTimeout = number('heartbeatTimeout');
  if (heartbeatTimeout <= heartbeatInterval) {
    throw new OptionError(
      'heartbeatTimeout',
      `must be longer than heartbeatInterval (${heartbeatInterval} ms), or every heartbeat would time out`,
      heartbeatTimeout,
    );
  }
  const outbound = Object.hasOwn(options, 'outbound') ? options.outbound : null;
  if (outboundMode(outbound) === undefined) {
    throw new OptionError(
      'outbound',
      'must be null (disabled), a function (proxied) or undefined (native)',
      outbound,
    );
  }
  let modules: ModuleMap = {};
  if (options.modules !== undefined) {
    const checked = checkModulesOption(options.modules);
    if ('fault' in checked) throw new OptionError('modules', `is not a module map: ${checked.fault}`);
    modules = checked.modules;
  }
  const packages = resolvePackages(options.packages, options.packagesBase);
  const warmPackages: unknown = options.warmPackages;
  if (
    warmPackages !== undefined &&
    typeof warmPackages !== 'boolean' &&
    !(typeof warmPackages === 'number' && Number.isSafeInteger(warmPackages) && warmPackages >= 0)
  ) {
    throw new OptionError(
      'warmPackages',
      'must be a boolean or a whole number of runs, not negative',
      warmPackages,
    );
  }
  const childExecArgv = options.childExecArgv ?? DEFAULT_CHILD_EXEC_ARGV;
  if (!Array.isArray(childExecArgv) || !childExecArgv.every((flag) => typeof flag === 'string')) {
    throw new OptionError('childExecArgv', 'must be a list of strings', childExecArgv);
  }
  // No process can be started with one: refused here, where it was written, not by every spawn after.
  if (childExecArgv.some((flag) => flag.includes('\0'))) {
    throw new OptionError('childExecArgv', 'must hold no NUL character', childExecArgv);
  }
  for (const name of ['allowLinkLocal', 'allowLoopback', 'allowPrivate'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') {
      throw new OptionError(name, 'must be a boolean', options[name]);
    }
  }
  const ownEndpoints = options.ownEndpoints ?? [];
  if (!Array.isArray(ownEndpoints) || !ownEndpoints.every(isOwnEndpoint)) {
    throw new OptionError('ownEndpoints', 'must be a list of { address, port, prefix? }', ownEndpoints);
  }
  if (options.typescript !== undefined && typeof options.typescript !== 'boolean') {
    throw new OptionError('typescript', 'must be a boolean', options.typescript);
  }
  if (options.consoleFormat !== undefined && !CONSOLE_FORMATS.includes(options.consoleFormat)) {
    throw new OptionError('consoleFormat', "must be 'string' or 'inspect'", options.consoleFormat);
  }
  for (const name of ['onPoolEvent', 'onExecution'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new OptionError(name, 'must be a function', options[name]);
    }
  }
  const cache = options.cache;
  const directory = typeof cache === 'object' && cache !== null ? cache.directory : undefined;
  if (
    cache !== undefined &&
    typeof cache !== 'boolean' &&
    (typeof directory !== 'string' || directory === '')
  ) {
    throw new OptionError('cache', 'must be a boolean or { directory: path }', cache);
  }
  let durable: DurableRuns;
  try {
    durable = new DurableRuns(options.durable);
  } catch (error) {
    throw new OptionError('durable', `is not usable: ${(error as Error).message}`);
  }
  const childCaches = childCacheFolders(cache);
  return {
    timeout: number('timeout'),
    wallClockLimit: optionalNumber('wallClockLimit'),
    memoryLimit: number('memoryLimit'),
    outbound,
    modules,
    packages: packages && { ...packages, cache: cacheFolder(cache, PACKAGES_CACHE_FOLDER) },
    typescript: options.typescript ?? true,
    consoleFormat: options.consoleFormat,
    onExecution: options.onExecution,
    durable,
    pool: {
      size: number('poolSize'),
      startOneFirst: startOneChildFirst(number('poolSize')),
      queueLimit: number('queueLimit'),
      maxExecutionsPerChild: number('maxExecutionsPerChild'),
      maxChildAge: number('maxChildAge'),
      heartbeatInterval,
      heartbeatTimeout,
      startTimeout: DEFAULT_START_TIMEOUT,
      killTimeout: number('killTimeout'),
      rssLimit: number('childRssLimit'),
      maxRetainedPerChild: number('maxRetainedPerChild'),
      handlesIdleTimeout: number('handlesIdleTimeout'),
      grace: number('grace'),
      warmPackages: warmWindow(warmPackages as boolean | number | undefined),
      childExecArgv,
      allowLinkLocal: options.allowLinkLocal ?? false,
      allowLoopback: options.allowLoopback ?? false,
      allowPrivate: options.allowPrivate ?? false,
      ownEndpoints,
      ...childCaches,
      ...(options.onPoolEvent ? { onEvent: options.onPoolEvent } : {}),
    },
  };
}

/** The packages option's shape; names and folders are the bundler's to check. */
function resolvePackages(
  list: unknown,
  base: unknown,
): { readonly list: PackageList; readonly base: string } | undefined {
  if (base !== undefined && (typeof base !== 'string' || base === '')) {
    throw new OptionError('packagesBase', 'must be a folder path', base);
  }
  if (list === undefined) return undefined;
  const strings = (values: unknown[]) => values.every((value) => typeof value === 'string');
  const shaped = Array.isArray(list)
    ? strings(list)
    : typeof list === 'object' && list !== null && strings(Object.values(list));
  if (!shaped)
    throw new OptionError('packages', 'must be a list of names, or an object of name → directory', list);
  return { list: list as PackageList, base: resolve((base as string | undefined) ?? process.cwd()) };
}

function isOwnEndpoint(value: unknown): value is OwnEndpoint {
  if (typeof value !== 'object' || value === null) return false;
  const { address, port, prefix } = value as Record<string, unknown>;
  const family = typeof address === 'string' ? isIP(address) : 0;
  const whole = (number: unknown, max: number) =>
    Number.isInteger(number) && (number as number) >= 0 && (number as number) <= max;
  return (
    family !== 0 && whole(port, 65535) && (prefix === undefined || whole(prefix, family === 6 ? 128 : 32))
  );
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' || typeof value === 'function' ? `a ${typeof value}` : String(value);
}
