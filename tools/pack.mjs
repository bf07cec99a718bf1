// Usage: node tools/pack.mjs [--destination DIR] [--json]     (`tools/run pack` builds first, then runs this)
//
// Leaves installable tarballs of the six published packages in one folder (dist-tarballs/ at the
// root unless --destination names another), so a user installs them in an app with plain npm while
// the packages are not on the npm registry. Each is packed with `pnpm pack`, which writes real
// versions where the workspace says `workspace:` and `catalog:` (`npm pack` leaves those, and npm
// then refuses the tarball). pnpm checks the workspace's engines (Node 24 or newer) before it packs,
// so on an older Node this stops with ERR_PNPM_UNSUPPORTED_ENGINE; `tools/run pack` runs it under
// the Node 24 it fetches. The packages must be built: the script `pack` of the root package.json
// builds them first. It prints the tarballs' paths (with --json, as one JSON list) and the command
// that installs them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The packages a release publishes, in the order npm installs them; compat and integration are private. */
export const PUBLISHED = ['protocol', 'runtime', 'executor', 'packages', 'server', 'mcp'];

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Packs every published package into `destination` and resolves to the tarballs' paths, in the
 * order of PUBLISHED. A tarball of the same package left there by an earlier run is removed first,
 * so the folder holds one version of each.
 */
export function packAll(destination, env = process.env) {
  mkdirSync(destination, { recursive: true });
  for (const file of readdirSync(destination)) {
    if (PUBLISHED.some((name) => file.startsWith(`supolka-codemode-${name}-`) && file.endsWith('.tgz'))) {
      rmSync(join(destination, file));
    }
  }
  const pnpm = `pnpm@${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.replace(/^pnpm@/, '')}`;
  return PUBLISHED.map((name) => {
    const output = execFileSync('npx', ['--yes', pnpm, 'pack', '--json', '--pack-destination', destination], {
      cwd: join(root, 'packages', name),
      env: packEnv(env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return JSON.parse(output).filename;
  });
}

/**
 * A `pnpm run` describes the repository's package to its scripts in npm_* variables, which an npm
 * started from them reads in place of its configuration: none of them pass but the global npmrc
 * tools/run names (it holds the machine's registry settings).
 */
function packEnv(env) {
  const clean = {};
  for (const [key, value] of Object.entries(env)) {
    if (!/^npm_/i.test(key) || key.toLowerCase() === 'npm_config_globalconfig') clean[key] = value;
  }
  return clean;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { destination: { type: 'string' }, json: { type: 'boolean' } },
  });
  const [major] = process.versions.node.split('.').map(Number);
  if (major < 24) {
    console.error(
      `tools/pack.mjs: Node ${process.version} is below the workspace's floor (24), where pnpm refuses to pack; run tools/run pack, which brings Node 24.`,
    );
    process.exit(1);
  }
  const destination = resolve(values.destination ?? join(root, 'dist-tarballs'));
  const tarballs = packAll(destination);
  if (values.json) {
    console.log(JSON.stringify(tarballs));
  } else {
    console.log(`Packed into ${destination}:`);
    for (const tarball of tarballs) console.log(`  ${tarball}`);
    console.log(`\nIn your app:  npm install ${join(destination, '*.tgz')} isolated-vm`);
  }
}
