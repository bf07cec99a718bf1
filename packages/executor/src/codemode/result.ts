/**
 * An envelope of this executor in the shape the Code Mode contract returns. The contract's result
 * is `{ result, error?, logs }`; this one adds `code`, as every envelope does, and the error's kind,
 * name and frames (docs/codemode.md, "Errors"), with positions told in the code as the model wrote
 * it: the sandbox's positions are those of the entry the form made, which moved and wrapped it.
 */
import { errorDetails } from '@supolka/codemode-protocol';
import { ENTRY_NAME } from '../sandbox/positions.ts';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { authorPositionInMessage, programStack, type StackSources } from '../sandbox/stack.ts';
import type { CodePositions } from './code-positions.ts';
import type { CodeModeResult } from './contract.ts';
import { EMPTY_ERROR_MESSAGE } from './errors.ts';

export function toCodeModeResult(envelope: ExecuteResult, positions?: CodePositions): CodeModeResult {
  const { result, code, logs } = envelope;
  const sources: StackSources | undefined = positions && {
    entryName: ENTRY_NAME,
    entry: positions,
    // The sandbox named module frames by their keys already; there is nothing of the form's to map.
    moduleKey: (name) => name,
  };
  let error = envelope.error;
  if (error !== undefined && sources && envelope.errorKind === 'syntax')
    error = authorPositionInMessage(error, sources);
  const errorStack =
    envelope.errorStack !== undefined && sources
      ? programStack(envelope.errorStack, sources)
      : envelope.errorStack;
  return {
    result,
    ...(error !== undefined ? { error: error === '' ? EMPTY_ERROR_MESSAGE : error } : {}),
    ...(code !== undefined ? { code } : {}),
    logs: logs.map(({ level, text }) => (level === 'log' ? text : `[${level}] ${text}`)),
    ...errorDetails({ errorKind: envelope.errorKind, errorName: envelope.errorName, errorStack }),
  };
}
