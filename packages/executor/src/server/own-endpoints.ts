/**
 * The server's own listen addresses, which a program's native request must never reach whatever
 * the operator's opt-ins: a remote client would otherwise read this server's /healthz and
 * /metrics, or speak the protocol to it as the server itself.
 */
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { OwnEndpoint } from '../sandbox/outbound/address-policy.ts';

/**
 * The endpoints a server listening on `listening` answers on. A wildcard listen (0.0.0.0, ::)
 * answers on its port at every address of every interface and on all of 127.0.0.0/8, so each is
 * listed; interfaces that appear after the server started are not (docs/server.md).
 */
export function ownEndpoints(listening: AddressInfo): OwnEndpoint[] {
  const { address, port } = listening;
  if (address !== '0.0.0.0' && address !== '::') return [{ address, port }];
  const endpoints: OwnEndpoint[] = [
    { address: '127.0.0.0', prefix: 8, port },
    { address: '::1', port },
  ];
  for (const infos of Object.values(networkInterfaces())) {
    for (const info of infos ?? []) endpoints.push({ address: info.address, port });
  }
  return endpoints;
}
