/**
 * The WebIDL pieces every interface shares: argument counts and the conversions, with the error
 * texts workerd writes (https://webidl.spec.whatwg.org/#es-type-mapping).
 */
import { TypeErrorCtor } from './primordials.ts';

/** Throws workerd's TypeError when an operation got fewer arguments than it requires. */
export function requireArguments(count: number, required: number, operation: string, owner: string): void {
  if (count < required) {
    throw new TypeErrorCtor(
      `Failed to execute '${operation}' on '${owner}': ${required} argument${required === 1 ? '' : 's'} required, but only ${count} present.`,
    );
  }
}

/** DOMString: ToString, which throws a TypeError for a Symbol as the language does. */
export function toDOMString(value: unknown): string {
  return `${value as string}`;
}

export const GLOBAL_SCOPE = 'ServiceWorkerGlobalScope';
