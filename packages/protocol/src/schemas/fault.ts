/** A fault: what a call that is not an execution fails with, across any boundary. */
import { z } from 'zod';
import { FaultCodeSchema } from './envelope.ts';

export const FaultSchema = z.strictObject({
  code: FaultCodeSchema,
  message: z.string({ error: 'must be a string' }),
});
export type Fault = z.infer<typeof FaultSchema>;
