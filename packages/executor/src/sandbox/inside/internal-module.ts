/**
 * INTERNAL_MODULE_SOURCE (entry/internal-module.ts), a module of its own: what RUN_SUPPORT_SOURCE
 * returned for this isolate, as bindings the entry imports. It deletes __runtimeInternals, so
 * user code never sees the runtime's shared state.
 */
import type { RunSupport, SandboxGlobal } from './host.ts';

const sandbox = (globalThis as SandboxGlobal).__runtimeInternals.sandbox as RunSupport;
delete (globalThis as Partial<SandboxGlobal>).__runtimeInternals;
export const __provider = sandbox.provider;
export const __startRun = sandbox.startRun;
export const __loaded = sandbox.loaded;
export const __enterGlobalScope = sandbox.enterGlobalScope;
