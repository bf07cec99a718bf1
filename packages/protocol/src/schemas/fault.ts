/** A fault: what a call that is not an execution fails with, across any boundary. */
import { z } from 'zod';
import { EnvelopeCodeSchema } from './envelope.ts';

export const FaultSchema = z.strictObject({
  // A fault's code is a fault's, or a durable token's refusal of a discard (version 3).
  code: EnvelopeCodeSchema,
  message: z.string({ error: 'must be a string' }),
});
export type Fault = z.infer<typeof FaultSchema>;
