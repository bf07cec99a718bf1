/**
 * What a child is started with: the executor settings that are not part of any request, every one
 * resolved (the child applies no defaults). They reach the child as one JSON argument at fork,
 * before the channel opens, and the child refuses to start on settings that do not hold (its exit
 * code and stderr then tell the pool why).
 */
import type { OwnEndpoint } from '../sandbox/outbound/address-policy.ts';

/**
 * Faults a test injects into a child, so supervision can be driven against a real process. Each
 * acts in the child's own host code, outside any isolate: exactly where a defect of the executor or
 * of the engine would show.
 */
export interface ChildTestHooks {
  /** A tool call of this name blocks the child's event loop for ever, as a hung host would. */
  readonly hangOnTool?: string;
  /** A tool call of this name allocates host memory until the child's own V8 heap gives out. */
  readonly exhaustMemoryOnTool?: string;
  /**
   * A tool call of this name reports isolated-vm's catastrophic out-of-memory error for the calling
   * run's isolate, as V8's fatal out-of-memory does (no guest program reaches it reliably here).
   */
  readonly catastrophicOnTool?: string;
  /**
   * A tool call of this name writes the bytes its first argument names (channel-attacks.ts) straight
   * to the channel, as a child no longer speaking the protocol would.
   */
  readonly channelAttackOnTool?: string;
  /** The engine check fails with this text, as on an engine that cannot serve the sandbox. */
  readonly failEngineCheck?: string;
  /** A file path: the first child to create the file fails its engine check; the others pass. */
  readonly failFirstEngineCheck?: string;
  /**
   * A file path: after the child says it is wedged it holds the answer that follows until the file
   * exists, as a child the machine's load stalls between the two messages would.
   */
  readonly holdAnswerAfterWedge?: string;
  /**
   * A file path: the first child to create the file and be handed a start (`handOn`) changes the
   * first bytes of the snapshot before it checks them, as if they had been damaged on the way.
   */
  readonly corruptHandOn?: string;
  /**
   * A file path: the first child to create the file and hand its own start on commits to it under
   * the key of another build, as a child under another Node or other flags would.
   */
  readonly foreignHandOn?: string;
}

export interface ChildSettings {
  /** Headroom past each run's timeout for the engine's own timer and the host race (ms). */
  readonly grace: number;
  /** Retained executions the child may hold at once. */
  readonly maxRetained: number;
  /** Whether native outbound requests may reach link-local addresses (cloud metadata endpoints). */
  readonly allowLinkLocal: boolean;
  /**
   * The pool's resident-memory bound for recycling idle children (MB): the memory backstop's floor
   * rises no higher while retained executions are held (child/backstop.ts).
   */
  readonly rssLimit: number;
  /** Whether native outbound requests may reach loopback addresses. */
  readonly allowLoopback: boolean;
  /** Whether native outbound requests may reach private addresses. */
  readonly allowPrivate: boolean;
  /** Endpoints native outbound requests never reach (the server's own). */
  readonly ownEndpoints: readonly OwnEndpoint[];
  /** Runs whose imports the sandbox holds ready in the isolate it prepares (warmWindow); WARM_WINDOW when absent. */
  readonly warmPackages?: number;
  /**
   * Whether the parent sends, as its first message, the start an earlier child made (`handOn`),
   * which this child checks and starts from instead of probing the engine and making the snapshot.
   */
  readonly awaitHandOn?: boolean;
  /**
   * Whether the parent asks this child to hand its start on, should it make its own: it commits to
   * its snapshot in its first healthy answer and sends it (`snapshot`) behind a later heartbeat
   * answer. A child that refused the start it was handed hands its own on unasked.
   */
  readonly handOnWanted?: boolean;
  /**
   * The folder a start is kept in on disk (sandbox/setup/cached-start.ts), which the parent made
   * and checked; the child checks it again before it reads or writes. Absent: no cache.
   */
  readonly startCache?: string;
  /**
   * The folder the child keeps Node's compile cache in (cache/compile-cache.ts), which the parent
   * made and checked; the child checks it again and turns the cache on before it loads its bundle.
   * Absent: none.
   */
  readonly compileCache?: string;
  readonly testHooks?: ChildTestHooks;
}

/** The pool's settings a child is started with (pool.ts names each in PoolSettings). */
export interface ChildSettingsSource {
  readonly grace: number;
  readonly maxRetainedPerChild: number;
  readonly allowLinkLocal: boolean;
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
  readonly ownEndpoints: readonly OwnEndpoint[];
  readonly rssLimit: number;
  readonly warmPackages?: number | undefined;
  readonly startCache?: string | undefined;
  readonly compileCache?: string | undefined;
}

/** The settings every child of a pool with these settings is started with, before its part in the start. */
export function childSettingsOf(source: ChildSettingsSource, testHooks?: ChildTestHooks): ChildSettings {
  return {
    grace: source.grace,
    maxRetained: source.maxRetainedPerChild,
    allowLinkLocal: source.allowLinkLocal,
    allowLoopback: source.allowLoopback,
    allowPrivate: source.allowPrivate,
    ownEndpoints: source.ownEndpoints,
    rssLimit: source.rssLimit,
    ...(source.warmPackages !== undefined ? { warmPackages: source.warmPackages } : {}),
    ...(source.startCache !== undefined ? { startCache: source.startCache } : {}),
    ...(source.compileCache !== undefined ? { compileCache: source.compileCache } : {}),
    ...(testHooks ? { testHooks } : {}),
  };
}

/**
 * A child's settings with its part in handing the start on (pool/handed-start.ts): awaiting one the
 * parent sends first, or asked to hand its own on. A pool's first child is asked.
 */
export function withStartPart(
  settings: ChildSettings,
  part: { readonly awaitHandOn: boolean; readonly handOnWanted: boolean },
): ChildSettings {
  return {
    ...settings,
    ...(part.awaitHandOn ? { awaitHandOn: true } : {}),
    ...(part.handOnWanted ? { handOnWanted: true } : {}),
  };
}

export function encodeSettings(settings: ChildSettings): string {
  return JSON.stringify(settings);
}

/** Parses and checks the settings argument; throws a message naming the field that does not hold. */
export function parseSettings(text: string | undefined): ChildSettings {
  if (text === undefined) throw new Error('The child was started without its settings argument.');
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null) throw new Error('The child settings must be an object.');
  const record = value as Record<string, unknown>;
  for (const field of ['grace', 'maxRetained', 'rssLimit'] as const) {
    const number = record[field];
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) {
      throw new Error(`The child setting ${field} must be a whole number, not negative.`);
    }
  }
  for (const field of ['allowLinkLocal', 'allowLoopback', 'allowPrivate'] as const) {
    if (typeof record[field] !== 'boolean') throw new Error(`The child setting ${field} must be a boolean.`);
  }
  if (!Array.isArray(record.ownEndpoints)) throw new Error('The child setting ownEndpoints must be a list.');
  const warm = record.warmPackages;
  if (warm !== undefined && (typeof warm !== 'number' || !Number.isSafeInteger(warm) || warm < 0)) {
    throw new Error('The child setting warmPackages must be a whole number, not negative.');
  }
  for (const field of ['awaitHandOn', 'handOnWanted'] as const) {
    if (record[field] !== undefined && typeof record[field] !== 'boolean') {
      throw new Error(`The child setting ${field} must be a boolean.`);
    }
  }
  for (const field of ['startCache', 'compileCache'] as const) {
    if (record[field] !== undefined && typeof record[field] !== 'string') {
      throw new Error(`The child setting ${field} must be a path.`);
    }
  }
  const hooks = record.testHooks;
  if (hooks !== undefined) {
    if (typeof hooks !== 'object' || hooks === null)
      throw new Error('The child setting testHooks must be an object.');
    for (const [name, hook] of Object.entries(hooks)) {
      if (typeof hook !== 'string') throw new Error(`The test hook ${name} must be a string.`);
    }
  }
  return value as ChildSettings;
}
