/** What the in-process doors share: the cancellation a row asks for, and the outbound setting it names. */
import type { OutboundFunction } from '@supolka/codemode-executor';
import { hangs, proxiedFetch } from '../catalogue.ts';
import type { Behaviour } from '../door.ts';

/** Why a cancelled row was aborted: the doors that name their caller's reason repeat it. */
export const CANCEL_REASON = 'the matrix row cancelled it';

/** A signal aborted once the run reached math.hang, for a row that asks to be cancelled. */
export function cancellation(behaviour: Behaviour): { signal?: AbortSignal; release(): void } {
  if (behaviour.cancel !== true) return { release: () => {} };
  const controller = new AbortController();
  const abort = () => controller.abort(new Error(CANCEL_REASON));
  hangs.addEventListener('called', abort, { once: true });
  return { signal: controller.signal, release: () => hangs.removeEventListener('called', abort) };
}

/** The tri-state for the row: null, the catalogue's proxied function, or undefined (native). */
export function outboundSetting(behaviour: Behaviour): OutboundFunction | null | undefined {
  if (behaviour.outbound === 'proxied') return proxiedFetch as OutboundFunction;
  if (behaviour.outbound === 'native') return undefined;
  return null;
}

/** Whether the row's native requests may reach loopback: the opt-in, unless the row refuses it. */
export function allowsLoopback(behaviour: Behaviour): boolean {
  return behaviour.loopback !== 'refused';
}
