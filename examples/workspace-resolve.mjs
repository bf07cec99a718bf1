// Lets the examples import '@supolka/codemode-executor' from this checkout, as they would from an
// installed package: `node --import ./examples/workspace-resolve.mjs examples/<name>.mjs`.
// It maps the package's two entries, and nothing else, onto the executor's build
// (packages/executor/dist): the main entry and the in-process subpath '/sandbox'.
import { registerHooks } from 'node:module'

const entries = new Map([
  ['@supolka/codemode-executor', new URL('../packages/executor/dist/index.js', import.meta.url).href],
  [
    '@supolka/codemode-executor/sandbox',
    new URL('../packages/executor/dist/sandbox/index.js', import.meta.url).href,
  ],
])

registerHooks({
  resolve(specifier, context, nextResolve) {
    const entry = entries.get(specifier)
    if (entry !== undefined) return { url: entry, format: 'module', shortCircuit: true }
    return nextResolve(specifier, context)
  },
})
