/**
 * Starts what the whole run shares, once, in vitest's main process: the loopback server and one
 * workerd process; stops both when the run ends. The exit hooks of src/workerd/exit-hooks.ts stop
 * workerd if the run ends any other way.
 */
import type { TestProject } from 'vitest/node';
import { startLoopbackServer } from '../src/loopback/server.ts';
import { WorkerdProcess } from '../src/workerd/process.ts';

export interface CompatContext {
  readonly workerdUrl: string;
  readonly loopbackOrigin: string;
  /** For the test that checks no workerd outlives a failed run. */
  readonly workerdPid: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    compat: CompatContext;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const loopback = await startLoopbackServer();
  let workerd: WorkerdProcess;
  try {
    workerd = await WorkerdProcess.start({
      loopbackAddress: `127.0.0.1:${loopback.port}`,
      transcripts: loopback.transcripts,
    });
  } catch (error) {
    await loopback.close();
    throw error;
  }
  project.provide('compat', {
    workerdUrl: workerd.url,
    loopbackOrigin: loopback.origin,
    workerdPid: workerd.pid ?? -1,
  });
  return async () => {
    await workerd.dispose();
    await loopback.close();
  };
}
