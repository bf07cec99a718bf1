/**
 * An upstream's answers checked against its tools' output schemas, the bridge's part of it: the
 * SDK's Client is given a validator that does nothing, since the SDK would compile every output
 * schema with ajv when tools are listed and run it on every answer, on the thread that serves every
 * client (one schema of 136 KB held the bridge about 5 s per listing; one backtracking `pattern`
 * over 30 characters of a crafted answer 5.7 s). Each upstream checks its answers with a SchemaCheck
 * of its own instead, in a thread with VALIDATION_TIMEOUT (the executor's schema-check.ts, which
 * describeTools shares), and a verdict against the answer is worded here as the reason its call fails.
 */
import type { jsonSchemaValidator } from '@modelcontextprotocol/client';
import { problemsText, type SchemaVerdict } from '@supolka/codemode-executor/serving';
import { outputSchemaMessage, validationTimeoutMessage } from './texts.ts';

/**
 * What the SDK's Client is given instead of its ajv validator: nothing is compiled or run on this
 * thread, so listing and answering cost no schema work here; SchemaCheck does it.
 */
export const NO_VALIDATION_HERE: jsonSchemaValidator = {
  getValidator: () => (input) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** Undefined when the answer holds against its output schema; otherwise why not, as a reason its call fails with. */
export function outputMismatch(verdict: SchemaVerdict): string | undefined {
  switch (verdict.kind) {
    case 'holds':
      return undefined;
    case 'timeout':
      return validationTimeoutMessage(verdict.timeout);
    case 'unreadable':
      return outputSchemaMessage(verdict.reason);
    case 'fails':
      return outputSchemaMessage(problemsText(verdict.problems));
  }
}
