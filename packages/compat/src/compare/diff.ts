/**
 * Compares two normalised records and renders their difference for a person to read: each field
 * that differs, with what workerd and the executor gave, log lines side by side.
 */
import { stringifyForDispatch } from '@supolka/codemode-protocol';
import type { RunRecord } from '../record.ts';

/** The record's fields in the order a diff lists them. */
const FIELDS = ['result', 'error', 'code', 'logs', 'retained', 'responses'] as const;

/** The canonical text of a field: codec JSON, so binary values compare by type and bytes. */
function canonical(value: unknown): string {
  return value === undefined ? '(absent)' : stringifyForDispatch(value);
}

export interface FieldDifference {
  readonly field: (typeof FIELDS)[number];
  readonly workerd: string;
  readonly executor: string;
}

export function differences(workerd: RunRecord, executor: RunRecord): FieldDifference[] {
  const out: FieldDifference[] = [];
  for (const field of FIELDS) {
    const left = canonical(workerd[field]);
    const right = canonical(executor[field]);
    if (left !== right) out.push({ field, workerd: left, executor: right });
  }
  return out;
}

const MAX_SHOWN = 1500;
const clip = (text: string) =>
  text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} chars)` : text;

function renderLogs(workerd: RunRecord, executor: RunRecord): string[] {
  const lines: string[] = [];
  const count = Math.max(workerd.logs.length, executor.logs.length);
  for (let index = 0; index < count; index++) {
    const left = workerd.logs[index];
    const right = executor.logs[index];
    const show = (line: typeof left) =>
      line === undefined ? '(no line)' : `[${line.level}] ${clip(line.text)}`;
    if (JSON.stringify(left) === JSON.stringify(right)) {
      lines.push(`      = ${show(left)}`);
    } else {
      lines.push(`    #${index} workerd:  ${show(left)}`, `    #${index} executor: ${show(right)}`);
    }
  }
  return lines;
}

/** A readable account of every differing field. */
export function renderDifferences(workerd: RunRecord, executor: RunRecord): string {
  const lines: string[] = [];
  for (const difference of differences(workerd, executor)) {
    lines.push(`  ${difference.field}:`);
    if (difference.field === 'logs') {
      lines.push(...renderLogs(workerd, executor));
    } else {
      lines.push(`    workerd:  ${clip(difference.workerd)}`, `    executor: ${clip(difference.executor)}`);
    }
  }
  return lines.join('\n');
}
