/**
 * The pool's `packages` message: the bundle of the packages the executor allows (docs/packages.md),
 * sent by the parent to each child once, before the child's first execution, never per request. In
 * a file of its own so the table gains one line. Its shape is the bundle's own check (checkBundle),
 * which the sandbox runs again when it takes the bundle.
 */
import { messageSchema } from '@supolka/codemode-protocol';
import { z } from 'zod';
import { checkBundle, type PackageBundle } from '../../packages/bundle.ts';

export const PackagesMessageSchema = messageSchema('packages', {
  bundle: z.custom<PackageBundle>(
    (value) => {
      try {
        checkBundle(value);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'must be a package bundle' },
  ),
});
