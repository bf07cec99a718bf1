/**
 * URL parsing for Request, Response and fetch, through the runtime's own URL class, read once the
 * URL installer has published it. A string parses only as an absolute URL: a Worker has no base.
 */
let URLCtor: (new (input: string, base?: string) => { href: string; protocol: string }) | undefined;

export function connectUrl(): void {
  URLCtor = (globalThis as { URL?: typeof URLCtor }).URL;
}

export function parseUrl(input: string, base?: string): { href: string; protocol: string } | null {
  if (URLCtor === undefined) return null;
  try {
    return base === undefined ? new URLCtor(input) : new URLCtor(input, base);
  } catch {
    return null;
  }
}
