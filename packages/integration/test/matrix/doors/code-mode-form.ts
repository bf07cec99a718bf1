/**
 * What the Code Mode form (`execute(code, providers, { signal })`) takes from a row, for both doors
 * that reach it (the form called directly, and through runCode). The form has no per-request
 * settings, so the row's outbound, loopback opt-in, modules, timeout, wall-clock bound, memory
 * limit, console format and packages become the executor's options, and the executor is kept per distinct
 * set of them. Every executor holds the matrix's key: a durable run is asked for per request
 * (`options.durable`), which runCode never does.
 */
import type { CodeModeProvider } from '@supolka/codemode-executor';
import { IsolateExecutor } from '@supolka/codemode-executor';
import { providersNamed } from '../catalogue.ts';
import type { Behaviour } from '../door.ts';
import { PACKAGE_DIRECTORIES, usesPackages } from '../package-doors.ts';
import { durableKeys } from './durable.ts';
import { allowsLoopback, outboundSetting } from './hooks.ts';
import { OnePerSetting } from './one-per-setting.ts';

/** The executors of a Code Mode door: one per distinct set of the settings the form cannot take per request. */
export function codeModeExecutors() {
  const executors = new OnePerSetting<string, IsolateExecutor>();
  return {
    executorFor(behaviour: Behaviour): IsolateExecutor {
      const settings = {
        outbound: behaviour.outbound ?? 'disabled',
        allowLoopback: allowsLoopback(behaviour),
        timeout: behaviour.timeout,
        wallClockLimit: behaviour.wallClockLimit,
        memoryLimit: behaviour.memoryLimit,
        modules: behaviour.modules,
        consoleFormat: behaviour.consoleFormat,
        packages: usesPackages(behaviour),
      };
      return executors.for(
        JSON.stringify(settings),
        () =>
          new IsolateExecutor({
            poolSize: 1,
            allowLoopback: settings.allowLoopback,
            outbound: outboundSetting(behaviour),
            ...(settings.timeout ? { timeout: settings.timeout } : {}),
            ...(settings.wallClockLimit ? { wallClockLimit: settings.wallClockLimit } : {}),
            ...(settings.memoryLimit ? { memoryLimit: settings.memoryLimit } : {}),
            ...(settings.modules ? { modules: settings.modules } : {}),
            ...(settings.consoleFormat ? { consoleFormat: settings.consoleFormat } : {}),
            ...(settings.packages ? { packages: PACKAGE_DIRECTORIES } : {}),
            durable: { keys: durableKeys() },
          }),
      );
    },
    close: async () => {
      await Promise.all(executors.all().map((executor) => executor.dispose()));
    },
  };
}

/** The row's providers as the contract has them: `{ name, fns, prelude? }`, with no proxySource. */
export function codeModeProviders(behaviour: Behaviour): CodeModeProvider[] {
  return providersNamed(behaviour.providers ?? []).map(({ name, fns, prelude }) => ({
    name,
    fns: (fns ?? {}) as CodeModeProvider['fns'],
    ...(prelude !== undefined ? { prelude } : {}),
  }));
}
