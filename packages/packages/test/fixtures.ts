/**
 * Packages made on disk for a test, in a temporary folder removed after the file: for the shapes
 * no registry package has (a link out of the package, an `exports` target that climbs, a
 * stylesheet import), so each refusal is driven by a real file tree and a real esbuild run.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';

/** A folder for the file's packages, removed when the file ends, passed or failed. */
export function useFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'codemode-packages-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** Writes `files` (path → text, or { link: target }) under `folder`. */
export function writeTree(folder: string, files: Record<string, string | { link: string }>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(folder, path);
    mkdirSync(dirname(file), { recursive: true });
    if (typeof content === 'string') writeFileSync(file, content);
    else symlinkSync(content.link, file);
  }
}

/** A package.json's text. */
export function manifest(fields: Record<string, unknown>): string {
  return JSON.stringify({ version: '1.0.0', ...fields });
}
