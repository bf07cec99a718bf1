/** An envelope of this executor in the shape the Code Mode contract returns. */
import type { ExecuteResult } from '../sandbox/sandbox.ts';
import type { CodeModeResult } from './contract.ts';
import { EMPTY_ERROR_MESSAGE } from './errors.ts';

export function toCodeModeResult(envelope: ExecuteResult): CodeModeResult {
  const { result, error, code, logs } = envelope;
  return {
    result,
    ...(error !== undefined ? { error: error === '' ? EMPTY_ERROR_MESSAGE : error } : {}),
    ...(code !== undefined ? { code } : {}),
    logs: logs.map(({ level, text }) => (level === 'log' ? text : `[${level}] ${text}`)),
  };
}
