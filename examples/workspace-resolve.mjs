// Lets the examples import the published packages by name from this checkout, as they would from an
// installed app: `node --import ./examples/workspace-resolve.mjs examples/<name>.mjs`.
// A name the examples use (the four @supolka packages they import, with any subpath, and the other
// packages an example builds on: the AI SDK, the MCP SDK and the memory MCP server) resolves as if
// imported from packages/integration, whose node_modules links each to the workspace package or
// the pinned release. Each @supolka package's `exports` then points at its build (dist/), so an
// example runs on exactly what a tarball would ship, after `tools/run build`. Every other specifier
// resolves as it would without the hook.
import { registerHooks } from 'node:module';

const INSTALLED_FROM = new URL('../packages/integration/package.json', import.meta.url).href;
const NAMES = new Set([
  '@supolka/codemode-executor',
  '@supolka/codemode-protocol',
  '@supolka/codemode-server',
  '@supolka/codemode-mcp',
  '@modelcontextprotocol/sdk',
  '@modelcontextprotocol/server-memory',
  'ai',
]);

/** The package a bare specifier names: `ai/test` is `ai`, `@scope/name/sub` is `@scope/name`. */
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (NAMES.has(packageOf(specifier)))
      return nextResolve(specifier, { ...context, parentURL: INSTALLED_FROM });
    return nextResolve(specifier, context);
  },
});
