/**
 * The environment a test gives the npm it starts. A `pnpm run` sets npm_* variables describing the
 * repository's package (npm_config_* among them), and npm reads those in place of the machine's own
 * configuration: with them, a registry behind a certificate the machine trusts through its npm
 * configuration fails with SELF_SIGNED_CERT_IN_CHAIN. So none of them pass, and this process's
 * Node comes first on PATH, so npm and the bins' `#!/usr/bin/env node` run under it.
 */
import { delimiter, dirname } from 'node:path';

export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
  env.PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
  return env;
}
