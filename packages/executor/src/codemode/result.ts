/**
 * An envelope of this executor in the shape the Code Mode contract returns. The contract's result
 * is `{ result, error?, logs }`; this one adds `code`, as every envelope does, and the error's kind,
 * name and frames (docs/codemode.md, "Errors"), with positions told in the code as the model wrote
 * it: the sandbox's positions are those of the entry the form made, which moved and wrapped it.
 */
import { errorDetails } from '@supolka/codemode-protocol/wire';
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import { type CodePositions, withAuthorPositions } from './code-positions.ts';
import type { CodeModeResult } from './contract.ts';
import { EMPTY_ERROR_MESSAGE } from './errors.ts';

export function toCodeModeResult(envelope: ExecuteResult, positions?: CodePositions): CodeModeResult {
  const { result, error, code, logs, paused, ...rest } = withAuthorPositions(envelope, positions);
  return {
    result,
    ...(error !== undefined ? { error: error === '' ? EMPTY_ERROR_MESSAGE : error } : {}),
    ...(code !== undefined ? { code } : {}),
    logs: logs.map(({ level, text }) => (level === 'log' ? text : `[${level}] ${text}`)),
    ...errorDetails(rest),
    ...(paused !== undefined ? { paused } : {}),
  };
}
