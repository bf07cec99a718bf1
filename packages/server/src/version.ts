/**
 * This package's version, read from its package.json one level up (from src/ and dist/ alike): a
 * leaf, so what reports the version does not import what runs.
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return (manifest as { version: string }).version;
}
