/**
 * How the packages an executor allows reach its children (docs/packages.md): the bundle is encoded
 * once, when the executor's configuration has it, sent to every child alive then, and to each child
 * spawned after as its first message. No execution reaches the pool before the bundle does
 * (executor/isolate-executor.ts awaits it), and a child reads its channel in order, so every
 * execution a child runs finds the packages there.
 */
import type { PackageBundle } from '../packages/bundle.ts';
import type { PoolChild } from './child-handle.ts';
import { encodePoolMessage } from './messages/wire.ts';

export class PackageDelivery {
  #frame: string | undefined;

  /** Encodes `bundle` and sends it to `children`; answers the characters each child is sent. */
  deliver(bundle: PackageBundle, children: Iterable<PoolChild>): number {
    this.#frame = encodePoolMessage({ type: 'packages', bundle });
    for (const child of children) this.spawned(child);
    return this.#frame.length;
  }

  /** A child just spawned, or alive when the bundle came: it is sent the bundle, when there is one. */
  spawned(child: PoolChild): void {
    if (this.#frame !== undefined && child.alive) child.sendText(this.#frame);
  }
}
