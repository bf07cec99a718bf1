/**
 * runtime/src/url/generated/whatwg-url.generated.ts is what runtime/src/url/build-whatwg-url.mjs
 * makes from the installed whatwg-url, tr46 and punycode (regenerate after changing their pins).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

test('regenerating the bundled whatwg-url parser changes nothing', () => {
  const script = join(import.meta.dirname, '../../../runtime/src/url/build-whatwg-url.mjs');
  expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
});
