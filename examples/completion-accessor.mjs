import { IsolateExecutor } from '@supolka/codemode-executor'

const executor = new IsolateExecutor({ timeout: 3_000 })

console.log(
  await executor.execute({
    code: `async () => {
      globalThis.__resultJson = JSON.stringify({ result: 'the program reported this' })
      await new Promise(() => {})
      return 'the arrow never reaches here'
    }`,
    outbound: null,
  }),
)

console.log(
  await executor.execute({
    code: `async () => {
      try {
        Object.defineProperty(globalThis, '__resultJson', { value: 'replaced' })
      } catch (failure) {
        return failure.message
      }
      return 'the accessor was replaced'
    }`,
    outbound: null,
  }),
)

await executor.dispose()
