/**
 * The environment a test gives the npm it starts, so npm reads the machine's own configuration.
 *
 * Two things hide it. A `pnpm run` sets npm_* variables describing the repository's package
 * (npm_config_* among them), which npm reads in place of its configuration files: none of them
 * pass. And this process's Node comes first on PATH (npm and the bins' `#!/usr/bin/env node` must run
 * under it), so the machine's npm runs under a Node it was not installed with and takes its global
 * configuration from that Node's prefix, which has none: a registry certificate the machine trusts
 * through its global npmrc (`cafile`) is then unknown, and an install that misses npm's cache fails
 * with SELF_SIGNED_CERT_IN_CHAIN (seen on a fresh clone with a cold cache, where turbo's strict
 * environment also drops NODE_EXTRA_CA_CERTS). So the global configuration npm has under the
 * machine's own Node is named explicitly.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, sep } from 'node:path';

let machineGlobalConfig: string | null | undefined;

/** The global npmrc of the machine's npm, asked under the machine's own Node (null if none). */
function globalConfigOfMachine(env: NodeJS.ProcessEnv): string | null {
  if (machineGlobalConfig !== undefined) return machineGlobalConfig;
  const ours = dirname(process.execPath);
  const path = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== ours && !dir.includes(`${sep}tools${sep}.node`))
    .join(delimiter);
  try {
    const file = execFileSync('npm', ['config', 'get', 'globalconfig'], {
      env: { ...env, PATH: path },
      encoding: 'utf8',
    }).trim();
    machineGlobalConfig = file !== '' && existsSync(file) ? file : null;
  } catch {
    machineGlobalConfig = null;
  }
  return machineGlobalConfig;
}

export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  const globalConfig = globalConfigOfMachine(env);
  env.PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
  if (globalConfig !== null) env.npm_config_globalconfig = globalConfig;
  return env;
}
