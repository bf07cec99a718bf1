/**
 * Which addresses a native outbound request may connect to. The default is public addresses only,
 * as workerd's own network default (`allow = ["public"]`, against SSRF): loopback, private and
 * link-local are each refused unless their named opt-in is set, and every other range that is not
 * public (unspecified, multicast, broadcast, documentation, benchmarking, reserved) is refused
 * always. Addresses listed as the executor's own endpoints (the server's listen addresses) are
 * refused on their port whatever the opt-ins.
 *
 * An address is judged in one canonical form, whatever its spelling: WHATWG URL parsing has already
 * turned the numeric IPv4 forms (`127.1`, `0x7f000001`, `2130706433`, `0177.0.0.1`) into dotted
 * form; an IPv6 address that embeds an IPv4 one is judged as that IPv4 address (IPv4-mapped
 * ::ffff:0:0/96 and ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16), and the spellings whose
 * embedding cannot be trusted (IPv4-compatible ::/96, local-use NAT64 64:ff9b:1::/48, Teredo) are
 * refused as non-public. Names are judged once resolved, every address of the answer; `localhost`
 * and its subdomains are loopback before any lookup (RFC 6761). An address of this machine's own
 * interfaces is loopback too, beside its range: Linux delivers a connection to it through loopback,
 * to every service listening on a wildcard address, so a host's public address reaches its
 * loopback services past any firewall on the outside interface.
 */
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** The ranges a refusal names; only the first three have an opt-in. */
export type AddressRange = 'loopback' | 'private' | 'link-local' | 'non-public';

/** The opt-in that lets each range through, by name as the executor and the server spell it. */
export const RANGE_OPT_INS = {
  loopback: 'allowLoopback',
  private: 'allowPrivate',
  'link-local': 'allowLinkLocal',
} as const;

/** A listen address of the executor's own (`prefix` widens it to a network, for a wildcard listen). */
export interface OwnEndpoint {
  readonly address: string;
  readonly prefix?: number;
  readonly port: number;
}

export interface AddressPolicyOptions {
  /** Loopback: 127.0.0.0/8, ::1, and `localhost` names. */
  readonly allowLoopback?: boolean;
  /** Private: 10/8, 172.16/12, 192.168/16, 100.64/10 (CGNAT), fc00::/7 (unique local). */
  readonly allowPrivate?: boolean;
  /** Link-local: 169.254/16, fe80::/10 (cloud metadata endpoints live here). */
  readonly allowLinkLocal?: boolean;
  /** Endpoints refused whatever the opt-ins: the server's own. */
  readonly ownEndpoints?: readonly OwnEndpoint[];
}

/** The text a refused request fails with: the address, the range, and the opt-in if there is one. */
export function outboundRefusedMessage(range: AddressRange, address: string): string {
  const base = `Outbound requests to ${range} addresses are refused (${address})`;
  return range === 'non-public'
    ? `${base}.`
    : `${base}; the executor's ${RANGE_OPT_INS[range]} option permits them.`;
}

/** The text for the executor's own endpoint, which no opt-in reaches. */
export function ownEndpointRefusedMessage(address: string, port: number): string {
  return `Outbound requests to the executor's own address are refused (${address} port ${port}).`;
}

function blockList(entries: readonly (readonly [string, number])[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of entries) {
    list.addSubnet(network, prefix, network.includes(':') ? 'ipv6' : 'ipv4');
  }
  return list;
}

/**
 * The ranges, built when an address is first judged: a pool child that never fetches builds none, and
 * building them (Node's BlockList loaded with them) was about 1 ms of every child's start (issue 28).
 */
let ranges: Ranges | undefined;
interface Ranges {
  readonly loopback: BlockList;
  readonly private: BlockList;
  readonly linkLocal: BlockList;
  readonly nonPublic: BlockList;
  readonly globalUnicast: BlockList;
}

function builtRanges(): Ranges {
  ranges ??= {
    loopback: blockList([
      ['127.0.0.0', 8],
      ['::1', 128],
    ]),
    private: blockList([
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
      ['fc00::', 7],
    ]),
    linkLocal: blockList([
      ['169.254.0.0', 16],
      ['fe80::', 10],
    ]),
    /** The IANA special-purpose IPv4 ranges that are not globally reachable, multicast and broadcast. */
    nonPublic: blockList([
      ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches loopback on Linux
      ['192.0.0.0', 24], // IETF protocol assignments
      ['192.0.2.0', 24], // TEST-NET-1
      ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
      ['198.18.0.0', 15], // benchmarking
      ['198.51.100.0', 24], // TEST-NET-2
      ['203.0.113.0', 24], // TEST-NET-3
      ['224.0.0.0', 4], // multicast
      ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
      // IPv6 outside 2000::/3 is refused below: unspecified ([::] reaches loopback on Linux),
      // IPv4-compatible ::/96, local-use NAT64 64:ff9b:1::/48, discard 100::/64, multicast, the rest.
      ['2001::', 23], // IETF protocol assignments, Teredo among them
      ['2001:db8::', 32], // documentation
      ['3fff::', 20], // documentation
    ]),
    /** Global unicast: the only IPv6 space with public addresses. */
    globalUnicast: blockList([['2000::', 3]]),
  };
  return ranges;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped), or undefined if it is not one. */
function groups(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '');
  if (isIP(text) !== 6) return undefined;
  // A dotted tail (::ffff:1.2.3.4) is two groups written in decimal: rewrite it in hex.
  text = text.replace(
    /(\d+)\.(\d+)\.(\d+)\.(\d+)$/,
    (_, a, b, c, d) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const [head = '', tail] = text.split('::');
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function dottedOf(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The address a request to `address` would really reach, in the form it is judged in: the IPv4
 * address an IPv6 spelling embeds, the IPv6 address in canonical lowercase form, or the dotted IPv4.
 */
export function canonicalAddress(address: string): string {
  const g = groups(address);
  if (g === undefined) return address;
  const [a, b, c, d, e, f, high, low] = g as [number, number, number, number, number, number, number, number];
  const zeros = (...values: number[]) => values.every((value) => value === 0);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (SIIT translated) reach the IPv4 address itself.
  if (zeros(a, b, c, d) && ((e === 0 && f === 0xffff) || (e === 0xffff && f === 0)))
    return dottedOf(high, low);
  // 64:ff9b::a.b.c.d: the well-known NAT64 prefix, translated to the IPv4 address by the gateway.
  if (a === 0x64 && b === 0xff9b && zeros(c, d, e, f)) return dottedOf(high, low);
  // 2002:AABB:CCDD::/48: 6to4, tunnelled to the IPv4 address in its second and third groups.
  if (a === 0x2002) return dottedOf(b, c);
  return g.map((group) => group.toString(16)).join(':');
}

/** The range an IP address is in once canonical, or 'public'. */
export function rangeOf(address: string): AddressRange | 'public' {
  const canonical = canonicalAddress(address);
  const family = isIP(canonical) === 6 ? 'ipv6' : 'ipv4';
  const known = builtRanges();
  if (known.loopback.check(canonical, family)) return 'loopback';
  if (known.private.check(canonical, family)) return 'private';
  if (known.linkLocal.check(canonical, family)) return 'link-local';
  if (known.nonPublic.check(canonical, family)) return 'non-public';
  if (family === 'ipv6' && !known.globalUnicast.check(canonical, family)) return 'non-public';
  return 'public';
}

/** `localhost`, `LOCALHOST.`, `api.localhost`: loopback by name (RFC 6761 6.3), before any lookup. */
export function isLocalhostName(hostname: string): boolean {
  return /(^|\.)localhost\.*$/i.test(hostname);
}

export class AddressPolicy {
  readonly #options: AddressPolicyOptions;
  readonly #own: { list: BlockList; port: number }[];
  #localAddresses: BlockList | undefined;

  constructor(options: AddressPolicyOptions = {}) {
    this.#options = options;
    this.#own = (options.ownEndpoints ?? []).map(({ address, prefix, port }) => {
      const canonical = canonicalAddress(address);
      const six = isIP(canonical) === 6;
      return { list: blockList([[canonical, prefix ?? (six ? 128 : 32)]]), port };
    });
  }

  /** Why `address` (an IP literal of either family, any spelling) may not be reached on `port`; undefined if it may. */
  refusal(address: string, port: number): string | undefined {
    const canonical = canonicalAddress(address);
    const family = isIP(canonical) === 6 ? 'ipv6' : 'ipv4';
    if (this.#own.some((own) => own.port === port && own.list.check(canonical, family))) {
      return ownEndpointRefusedMessage(address, port);
    }
    const range = rangeOf(canonical);
    if (range !== 'public' && !this.#allows(range)) return outboundRefusedMessage(range, address);
    if (!this.#options.allowLoopback && this.#local().check(canonical, family)) {
      return outboundRefusedMessage('loopback', address);
    }
    return undefined;
  }

  /**
   * This machine's interface addresses, read once a policy first needs them (a policy lives for one
   * fetch). The read is not cached across fetches, though it costs about 0.7 ms (1.6 ms with the
   * list built, five addresses, a loaded two-core machine): the answer a cache would serve is
   * "not this machine", for every public address, and an address added to an interface after the
   * cache was filled (a container's, a VPN's) would be reachable, as a public one, until it
   * expired. No lifetime closes that window, and Node reports no interface change to refill on.
   */
  #local(): BlockList {
    if (this.#localAddresses === undefined) {
      const addresses = Object.values(networkInterfaces()).flatMap((infos) => infos ?? []);
      this.#localAddresses = blockList(
        addresses.map(({ address }) => {
          const canonical = canonicalAddress(address);
          return [canonical, isIP(canonical) === 6 ? 128 : 32] as const;
        }),
      );
    }
    return this.#localAddresses;
  }

  /** Why a host name may not be looked up at all (a `localhost` name); undefined if it may. */
  nameRefusal(hostname: string): string | undefined {
    return isLocalhostName(hostname) && !this.#options.allowLoopback
      ? outboundRefusedMessage('loopback', hostname)
      : undefined;
  }

  #allows(range: AddressRange): boolean {
    if (range === 'loopback') return this.#options.allowLoopback === true;
    if (range === 'private') return this.#options.allowPrivate === true;
    if (range === 'link-local') return this.#options.allowLinkLocal === true;
    return false;
  }
}
