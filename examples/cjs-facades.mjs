import { IsolateExecutor } from '@supolka/codemode-executor'

const executor = new IsolateExecutor()

console.log(
  await executor.execute({
    code: `import left from './left.js'
import right from './right.js'

async () => ({ left, right, runs: globalThis.runs })`,
    modules: {
      './shared.js': {
        cjs: `globalThis.runs = (globalThis.runs ?? 0) + 1
module.exports = { run: globalThis.runs }`,
      },
      './left.js': { cjs: `module.exports = require('./shared.js')` },
      './right.js': { cjs: `module.exports = require('./shared.js')` },
    },
    outbound: null,
  }),
)

await executor.dispose()
