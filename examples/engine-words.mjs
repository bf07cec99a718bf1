import { IsolateExecutor } from '@supolka/codemode-executor'

const executor = new IsolateExecutor({ timeout: 2_000 })

console.log(
  await executor.execute({
    code: `async () => { throw new Error('Script execution timed out.') }`,
    outbound: null,
  }),
)

console.log(
  await executor.execute({
    code: `async () => { for (;;) {} }`,
    outbound: null,
  }),
)

await executor.dispose()
