/**
 * What crosses for one tool call or one outbound request. A host call never rejects across the
 * boundary: its outcome travels as a frame, `['returned', value]` or `['thrown', text]`.
 */
import { z } from 'zod';
import { BytesSchema, HeaderPairsSchema } from './common.ts';

/** A tool call's answer: the envelope JSON the serving function produced, or the text of its failure. */
export const DispatchFrameSchema = z.union(
  [z.tuple([z.literal('returned'), z.string()]), z.tuple([z.literal('thrown'), z.string()])],
  { error: "must be ['returned', json] or ['thrown', text]" },
);
export type DispatchFrame = z.infer<typeof DispatchFrameSchema>;

/** An HTTP request as it crosses: the outbound fetch of a program, or an invocation of a retained handler. */
export const HttpRequestSchema = z.strictObject({
  method: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  url: z.string({ error: 'must be a string' }),
  headers: HeaderPairsSchema,
  body: BytesSchema.nullable(),
  /** How the requester wants redirects handled: followed (the default), returned as they are, or refused. */
  redirect: z
    .enum(['follow', 'manual', 'error'], { error: "must be one of 'follow', 'manual', 'error'" })
    .optional(),
});
export type HttpRequest = z.infer<typeof HttpRequestSchema>;

/** An HTTP response as it crosses, its body buffered whole. */
export const HttpResponseSchema = z.strictObject({
  status: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(100, { error: 'must be at least 100' })
    .max(599, { error: 'must be at most 599' }),
  statusText: z.string({ error: 'must be a string' }),
  headers: HeaderPairsSchema,
  body: BytesSchema.nullable(),
  /** The URL the response came from, after redirects. */
  url: z.string({ error: 'must be a string' }).optional(),
  redirected: z.boolean({ error: 'must be a boolean' }).optional(),
});
export type HttpResponse = z.infer<typeof HttpResponseSchema>;

/** An outbound request's answer: the response, or the text the program's fetch rejects with. */
export const OutboundFrameSchema = z.union(
  [z.tuple([z.literal('returned'), HttpResponseSchema]), z.tuple([z.literal('thrown'), z.string()])],
  { error: "must be ['returned', response] or ['thrown', text]" },
);
export type OutboundFrame = z.infer<typeof OutboundFrameSchema>;
