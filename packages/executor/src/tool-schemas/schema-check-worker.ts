/**
 * The thread JSON Schemas compile and run in (schema-check.ts): a schema is a tool author's to write
 * (an MCP upstream's output schema, a library caller's input schema) and the value a program's, and
 * a schema's `pattern`s are regular expressions that may backtrack for seconds, so neither compiling
 * nor running one may happen on an event loop that serves anything else. Answers each job
 * `{ id, schema, value }` with `{ id, verdict }` (schema-check.ts, SchemaVerdict).
 *
 * The validator is ajv, set as the MCP SDK sets it for its clients (not strict, formats checked,
 * every error reported), so the bridge checks upstream answers as the SDK would; a schema that
 * names draft 2020-12 or 2019-09 in `$schema` (zod writes 2020-12) is read by ajv's class for that
 * draft, any other as draft 7.
 */
import { parentPort } from 'node:worker_threads';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { SchemaProblem, SchemaVerdict } from './schema-check.ts';

/** Compiled schemas kept, by their text: an MCP upstream lists at most TOOL_LIMIT tools. */
const KEPT = 1000;
const OPTIONS: Options = { strict: false, validateFormats: true, validateSchema: false, allErrors: true };

// ajv-formats is CommonJS whose module.exports is the plugin; its types describe the ESM default.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

type Draft = 'draft-07' | '2019-09' | '2020-12';
/** One ajv per draft, made at the draft's first schema; all are replaced with the compiled set. */
let validators = new Map<Draft, Ajv>();
const compiled = new Map<string, ValidateFunction>();
const port = parentPort;

function draftOf(schema: Record<string, unknown>): Draft {
  const named = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (named.includes('2020-12')) return '2020-12';
  if (named.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

function validatorFor(draft: Draft): Ajv {
  let ajv = validators.get(draft);
  if (ajv === undefined) {
    ajv =
      draft === '2020-12'
        ? new Ajv2020(OPTIONS)
        : draft === '2019-09'
          ? new Ajv2019(OPTIONS)
          : new Ajv(OPTIONS);
    addFormats(ajv);
    validators.set(draft, ajv);
  }
  return ajv;
}

function compile(text: string): ValidateFunction {
  let validate = compiled.get(text);
  if (validate !== undefined) return validate;
  if (compiled.size >= KEPT) {
    // ajv keeps every schema it compiled; fresh instances let those go with the texts.
    compiled.clear();
    validators = new Map();
  }
  const schema = JSON.parse(text) as Record<string, unknown>;
  const ajv = validatorFor(draftOf(schema));
  // A schema with an $id is kept by ajv under it: a second one with the same $id takes the first's.
  const known = typeof schema.$id === 'string' ? ajv.getSchema(schema.$id) : undefined;
  validate = known ?? ajv.compile(schema);
  compiled.set(text, validate);
  return validate;
}

port?.on('message', (job: { id: number; schema: string; value: unknown }) => {
  let verdict: SchemaVerdict;
  try {
    const validate = compile(job.schema);
    if (validate(job.value)) verdict = { kind: 'holds' };
    else {
      const problems: SchemaProblem[] = (validate.errors ?? []).map((error) => {
        const { additionalProperty, unevaluatedProperty } = error.params as Record<string, unknown>;
        const extra = additionalProperty ?? unevaluatedProperty;
        return {
          path: error.instancePath,
          message: error.message ?? error.keyword,
          ...(typeof extra === 'string' ? { extraProperty: extra } : {}),
        };
      });
      verdict = { kind: 'fails', problems };
    }
  } catch (thrown) {
    verdict = { kind: 'unreadable', reason: thrown instanceof Error ? thrown.message : String(thrown) };
  }
  port.postMessage({ id: job.id, verdict });
});
port?.postMessage('ready');
