// An agent loop: the AI SDK's generateText with one code tool built on IsolateExecutor. The model
// writes a program against the tools' declarations, which describeTools writes from their schemas;
// the tool runs it and hands back the result.
// The model here is a scripted stand-in from the AI SDK's own test utilities (`ai/test`), so the
// example runs offline and prints the same every time; put a real provider's model in its place.
import { describeTools, IsolateExecutor } from '@supolka/codemode-executor';
import { generateText, isStepCount, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const forecasts = { Oslo: { tempC: 4, sky: 'sleet' }, Lisbon: { tempC: 19, sky: 'clear' } };
// The declarations in the code tool's description, and providers that check each call's argument.
const weather = describeTools([
  {
    name: 'weather',
    tools: {
      forecast: {
        description: "Today's forecast for a city.",
        inputSchema: jsonSchema({
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        }),
        outputSchema: jsonSchema({
          type: 'object',
          properties: {
            city: { type: 'string' },
            tempC: { type: ['number', 'null'] },
            sky: { type: 'string' },
          },
          required: ['city', 'tempC'],
        }),
        execute: ({ city }) => ({ city, ...(forecasts[city] ?? { tempC: null }) }),
      },
    },
  },
]);

const executor = new IsolateExecutor({ poolSize: 1, timeout: 10_000 });
const codeTool = tool({
  description: weather.description,
  inputSchema: jsonSchema({
    type: 'object',
    properties: { code: { type: 'string', description: 'the program' } },
    required: ['code'],
  }),
  // The Code Mode form: statements are accepted, and `logs` come back as text lines.
  execute: async ({ code }) => {
    const { result, error, logs } = await executor.execute(code, weather.providers);
    return error === undefined ? { result, logs } : { error, logs };
  },
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
// Turn one: a program. Turn two: an answer written from the tool's result, which arrives in the prompt.
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const toolResult = prompt.at(-1).role === 'tool' ? prompt.at(-1).content[0].output.value : undefined;
    if (toolResult === undefined) {
      const code = [
        "const cities = ['Oslo', 'Lisbon'];",
        'const all = await Promise.all(cities.map((city) => weather.forecast({ city })));',
        "console.log('asked', all.length, 'cities');",
        'return all.sort((a, b) => b.tempC - a.tempC)[0];',
      ].join('\n');
      return {
        content: [
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'run_code', input: JSON.stringify({ code }) },
        ],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    }
    const { city, tempC, sky } = toolResult.result;
    return {
      content: [{ type: 'text', text: `${city} is warmer: ${tempC} °C and ${sky}.` }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    };
  },
});

try {
  const { steps, text } = await generateText({
    model,
    tools: { run_code: codeTool },
    stopWhen: isStepCount(3),
    prompt: 'Which is warmer today, Oslo or Lisbon?',
  });
  for (const step of steps) {
    for (const call of step.toolCalls) console.log(`model wrote:\n${call.input.code}`);
    for (const result of step.toolResults) console.log('tool returned:', result.output);
  }
  console.log('model answered:', text);
} finally {
  weather.close();
  await executor.dispose();
}
