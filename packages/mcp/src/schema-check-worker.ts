/**
 * The thread an upstream's output schemas compile and run in (schema-check.ts): a schema is an
 * upstream's to write, and its `pattern`s are regular expressions that may backtrack for seconds,
 * so neither compiling nor running one may happen on the bridge's event loop. Answers each job
 * `{ id, schema, value }` with `{ id, error }`, error undefined when the value holds.
 */
import { parentPort } from 'node:worker_threads';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/** Compiled schemas kept, by their text: an upstream lists at most TOOL_LIMIT tools. */
const KEPT = 1000;

const provider = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();
const port = parentPort;

port?.on('message', (job: { id: number; schema: string; value: unknown }) => {
  let error: string | undefined;
  try {
    let validate = compiled.get(job.schema);
    if (validate === undefined) {
      validate = provider.getValidator(JSON.parse(job.schema) as JsonSchemaType);
      if (compiled.size >= KEPT) compiled.clear();
      compiled.set(job.schema, validate);
    }
    const result = validate(job.value);
    error = result.valid ? undefined : result.errorMessage;
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  port.postMessage({ id: job.id, error });
});
port?.postMessage('ready');
