/**
 * A resume's answers as a client hands them over (one per pending call, by sequence, in a Map or
 * an object, as IsolateExecutor takes them) and as the `resume` message carries them: a list of
 * `{ sequence, result }`, `{ sequence, error }` or `{ sequence, perform: true }`. The server checks
 * them against the token's pending calls (docs/durable.md, "Pausing and resuming").
 */
import type { ResumeAnswerMessage } from '../schemas/durable.ts';

/** How the caller answers a pending call when it resumes. */
export type ClientResumeAnswer =
  | { readonly result: unknown }
  | { readonly error: string }
  /** Call the tool now, on this client, with the idempotency key of the token and the call. */
  | { readonly perform: true };

/** A resume's answers: by the pending call's sequence. */
export type ClientResumeAnswers =
  | ReadonlyMap<number, ClientResumeAnswer>
  | Readonly<Record<number, ClientResumeAnswer>>;

/** The answers as the message carries them; an answer that is no object crosses as given, for the server to refuse. */
export function answersOnTheWire(answers: ClientResumeAnswers): ResumeAnswerMessage[] {
  const entries: [number, ClientResumeAnswer][] =
    answers instanceof Map
      ? [...answers.entries()]
      : Object.entries(answers ?? {}).map(([key, answer]) => [Number(key), answer as ClientResumeAnswer]);
  return entries.map(([sequence, answer]) => ({ sequence, ...answer }) as ResumeAnswerMessage);
}
