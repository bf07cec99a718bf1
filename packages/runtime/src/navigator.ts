/** navigator (HTML, https://html.spec.whatwg.org/multipage/system-state.html#the-navigator-object), as much as a worker has. */
import { TypeErrorCtor } from './primordials.ts';
import { defineInterface } from './webidl.ts';

/** What this runtime says it is; programs that test for Workers should test for the APIs they need instead. */
export const USER_AGENT = 'supolka-codemode-executor';

let constructing = false;

export class Navigator {
  constructor() {
    if (!constructing) throw new TypeErrorCtor('Illegal constructor');
  }
  get userAgent(): string {
    return USER_AGENT;
  }
  get language(): string {
    return 'en';
  }
  get languages(): readonly string[] {
    return ['en'];
  }
  get hardwareConcurrency(): number {
    return 1;
  }
}
defineInterface(Navigator);

export function createNavigator(): Navigator {
  constructing = true;
  try {
    return new Navigator();
  } finally {
    constructing = false;
  }
}
