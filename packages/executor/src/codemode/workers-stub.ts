/**
 * Stand-ins for what `@cloudflare/codemode` imports from `cloudflare:workers` (0.5.x: the root entry
 * and `/ai`, through its connector base class). They exist so those modules load outside workerd;
 * nothing here gives a class the behaviour workerd gives it (RPC, storage, a WorkerLoader), so the
 * package's parts that need a Worker, such as DynamicWorkerExecutor and CodemodeRuntime, still do
 * not work. node-hooks.ts serves this module to Node; a bundler or test runner aliases it
 * (docs/codemode.md, "Loading the package on Node").
 */

export class WorkerEntrypoint<Env = unknown> {
  readonly ctx: unknown;
  readonly env: Env;
  constructor(ctx: unknown, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }
}

export class DurableObject<Env = unknown> {
  readonly ctx: unknown;
  readonly env: Env;
  constructor(ctx: unknown, env: Env) {
    this.ctx = ctx;
    this.env = env;
  }
}

export class RpcTarget {}
