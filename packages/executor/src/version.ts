/**
 * The package's version, read from its package.json one level up (from src/ and from dist/
 * alike). A leaf: the command line, the MCP bridge's client and server names, and anything else
 * that reports a version import it without importing what reports it.
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return (manifest as { version: string }).version;
}
