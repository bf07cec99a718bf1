// Lets the examples import '@supolka/codemode-executor' from this checkout, as they would from an
// installed package: `node --import ./examples/workspace-resolve.mjs examples/<name>.mjs`.
// It maps the package name, and nothing else, onto the executor's build (packages/executor/dist).
import { registerHooks } from 'node:module'

const entry = new URL('../packages/executor/dist/index.js', import.meta.url).href

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === '@supolka/codemode-executor')
      return { url: entry, format: 'module', shortCircuit: true }
    return nextResolve(specifier, context)
  },
})
