/**
 * Runs a case in this executor, through the Sandbox over real isolates: the same program text and
 * module map, the same fake answering its tools, outbound fetch performed natively (the request
 * says `outbound: undefined` explicitly, the native mode of docs/protocol.md), and, for a case that
 * retains a handler, the same requests through Sandbox.invoke. The envelope's errorKind, which
 * workerd has no counterpart of, is checked for consistency and left out of the record.
 */
import type { Sandbox, SandboxExecuteRequest } from '@supolka/codemode-executor/sandbox';
import type { HttpRequest } from '@supolka/codemode-protocol';
import type { Case, InvokeRequest } from '../case.ts';
import { prepareCase } from '../prepare.ts';
import type { InvocationRecord, RunRecord } from '../record.ts';
import { FakeTools } from '../tools/fake.ts';
import { assertErrorKindConsistent } from './error-kind.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toHttpRequest(spec: InvokeRequest): HttpRequest {
  return {
    method: spec.method ?? 'GET',
    url: spec.url,
    headers: (spec.headers ?? []).map(([name, value]) => [name, value]),
    body: spec.body === undefined ? null : encoder.encode(spec.body),
  };
}

export async function runOnExecutor(
  item: Case,
  sandbox: Sandbox,
  loopbackOrigin: string,
): Promise<RunRecord> {
  const prepared = prepareCase(item, loopbackOrigin);
  const fake = new FakeTools();
  const request: SandboxExecuteRequest = {
    code: prepared.code,
    ...(prepared.modules !== undefined ? { modules: prepared.modules } : {}),
    providers: prepared.providers,
    dispatch: (provider, tool, argsJson) => fake.dispatch(provider, tool, argsJson),
    timeout: prepared.timeout,
    // Written explicitly: native mode, as workerd's own fetch reaches the loopback server.
    outbound: undefined,
    // The cases' server listens on loopback, which native requests reach only when opted in.
    allowLoopback: true,
    ...(item.invoke !== undefined ? { retainHandles: true } : {}),
    ...(item.consoleFormat !== undefined ? { consoleFormat: item.consoleFormat } : {}),
  };
  const envelope = await sandbox.execute(request);
  // workerd has no errorKind to compare with; the executor's own must hold together (error-kind.ts).
  assertErrorKindConsistent(envelope);
  const record: {
    -readonly [K in keyof RunRecord]: RunRecord[K];
  } = { logs: envelope.logs };
  if ('result' in envelope && envelope.result !== undefined) record.result = envelope.result;
  if (envelope.error !== undefined) record.error = envelope.error;
  if (envelope.code !== undefined) record.code = envelope.code;
  if (item.invoke === undefined) return record;

  const executionId = envelope.executionId;
  record.retained = executionId !== undefined;
  if (executionId === undefined) return record;
  const responses: InvocationRecord[] = [];
  try {
    for (const spec of item.invoke) {
      try {
        const response = await sandbox.invoke(executionId, toHttpRequest(spec), 'fetch');
        responses.push({
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          body: response.body === null ? '' : decoder.decode(response.body),
        });
      } catch (error) {
        responses.push({ error: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    sandbox.closeHandles(executionId);
  }
  record.retained = true;
  record.responses = responses;
  return record;
}
