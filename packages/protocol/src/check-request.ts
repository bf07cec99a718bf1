/**
 * The schema's half of splitting a request (split-request.ts takes it apart without zod): the
 * wire part checked, and the whole split as a caller that holds the schemas anyway (ExecutorClient)
 * makes it in one call.
 */
import { checkExecuteRequest } from './hot-messages.ts';
import { type ExecuteRequest, ExecuteRequestSchema } from './schemas/request.ts';
import { type RequestForm, type RequestParts, separateRequest } from './split-request.ts';
import { validate } from './validate.ts';

/**
 * The wire part, checked: the schema's fast half first (hot-messages.ts), which accepts what the
 * schema would in a few µs where the schema takes over a hundred in a process just woken; the
 * schema names the fault of anything else.
 */
export function checkRequest(candidate: unknown): ExecuteRequest {
  return checkExecuteRequest(candidate) ?? validate(ExecuteRequestSchema, candidate, 'execute request');
}

/** Splits and checks a caller's request; throws BadRequestError naming the field and the rule. */
export function splitRequest<Outbound>(
  request: unknown,
  form: RequestForm<Outbound> = {},
): RequestParts<Outbound> {
  const { candidate, host } = separateRequest(request, form);
  return { wire: checkRequest(candidate), host };
}
