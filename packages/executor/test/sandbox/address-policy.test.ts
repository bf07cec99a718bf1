/**
 * The address policy over a table of spellings an attacker would try, and over random IPv4
 * addresses written in every IPv6 form that embeds one: each spelling is judged as the address it
 * reaches.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  AddressPolicy,
  canonicalAddress,
  isLocalhostName,
  outboundRefusedMessage,
  ownEndpointRefusedMessage,
  rangeOf,
} from '../../src/sandbox/outbound/address-policy.ts';

/** Host names as WHATWG URL parsing leaves them: the policy only ever sees these forms. */
const hostnameOf = (host: string) => new URL(`http://${host}/`).hostname.replace(/^\[|\]$/g, '');

describe('rangeOf', () => {
  test.each([
    // loopback, in every spelling the URL parser and IPv6 allow
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:7F00:0001', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    // private, CGNAT and unique local (metadata at fd00:ec2::254 and 100.100.100.200)
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.100.100.200', 'private'],
    ['fd00:ec2::254', 'private'],
    ['fc00::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    // link-local, metadata's home
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    // never public, no opt-in
    ['0.0.0.0', 'non-public'],
    ['0.1.2.3', 'non-public'],
    ['::', 'non-public'],
    ['::a9fe:a9fe', 'non-public'],
    ['::127.0.0.1', 'non-public'],
    ['64:ff9b:1::a9fe:a9fe', 'non-public'],
    ['2001::a9fe:a9fe', 'non-public'],
    ['2001:db8::1', 'non-public'],
    ['3fff::1', 'non-public'],
    ['100::1', 'non-public'],
    ['ff02::1', 'non-public'],
    ['fec0::1', 'non-public'],
    ['1::', 'non-public'],
    ['192.0.0.8', 'non-public'],
    ['192.0.2.1', 'non-public'],
    ['198.18.0.1', 'non-public'],
    ['198.19.255.255', 'non-public'],
    ['198.51.100.7', 'non-public'],
    ['203.0.113.9', 'non-public'],
    ['224.0.0.1', 'non-public'],
    ['239.255.255.250', 'non-public'],
    ['240.0.0.1', 'non-public'],
    ['255.255.255.255', 'non-public'],
    ['::ffff:255.255.255.255', 'non-public'],
    // public stays public, in every embedding
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['169.255.0.1', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['2002:808:808::1', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ])('%s is %s', (address, range) => {
    expect(rangeOf(address)).toBe(range);
  });

  test.each([
    ['127.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['%31%32%37.0.0.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['2852039166', '169.254.169.254'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
    ['0251.0376.0251.0376', '169.254.169.254'],
    ['[::ffff:169.254.169.254]', '::ffff:a9fe:a9fe'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
  ])('the URL parser writes %s as %s, which the policy judges', (host, written) => {
    expect(hostnameOf(host)).toBe(written);
    expect(rangeOf(written)).not.toBe('public');
  });
});

describe('embedded IPv4, generated', () => {
  const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
  const dotted = ([a, b, c, d]: number[]) => `${a}.${b}.${c}.${d}`;
  const hex = ([a, b, c, d]: number[]) =>
    `${(((a as number) << 8) | (b as number)).toString(16)}:${(((c as number) << 8) | (d as number)).toString(16)}`;
  /** Every IPv6 spelling that reaches the IPv4 address itself, in URL-parsed and raw forms. */
  const spellings = (parts: number[]) => [
    `::ffff:${dotted(parts)}`,
    `::ffff:${hex(parts)}`,
    `0:0:0:0:0:ffff:${hex(parts)}`,
    `::ffff:0:${hex(parts)}`,
    `64:ff9b::${dotted(parts)}`,
    `64:ff9b::${hex(parts)}`,
    `2002:${hex(parts)}::1`,
    hostnameOf(`[::ffff:${dotted(parts)}]`),
    hostnameOf(`[64:ff9b::${dotted(parts)}]`),
  ];

  test('every embedding of an IPv4 address is judged as that address', () => {
    fc.assert(
      fc.property(ipv4, (parts) => {
        const expected = rangeOf(dotted(parts));
        for (const spelling of spellings(parts)) {
          expect(isIP(spelling)).toBe(6);
          expect(canonicalAddress(spelling)).toBe(dotted(parts));
          expect(rangeOf(spelling)).toBe(expected);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('every numeric spelling of a loopback or link-local address is refused by default', () => {
    const inRange = fc.oneof(
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
    );
    const policy = new AddressPolicy();
    fc.assert(
      fc.property(inRange, (parts) => {
        const number = parts.reduce((sum, part) => sum * 256 + part, 0);
        const hosts = [
          String(number),
          `0x${number.toString(16)}`,
          parts.map((part) => `0${part.toString(8)}`).join('.'),
          `${parts[0]}.${(parts[1] as number) * 65536 + (parts[2] as number) * 256 + (parts[3] as number)}`,
          ...spellings(parts).map((spelling) => `[${spelling}]`),
        ];
        for (const host of hosts) expect(policy.refusal(hostnameOf(host), 80)).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  test('IPv4-compatible and local-use NAT64 spellings are refused whatever they embed', () => {
    fc.assert(
      fc.property(ipv4, (parts) => {
        // ::0.0.0.1 is ::1 itself.
        expect(rangeOf(`::${dotted(parts)}`)).toBe(dotted(parts) === '0.0.0.1' ? 'loopback' : 'non-public');
        expect(rangeOf(`64:ff9b:1::${hex(parts)}`)).toBe('non-public');
      }),
    );
  });
});

describe('AddressPolicy', () => {
  test('refuses every range by default, naming the address and the opt-in', () => {
    const policy = new AddressPolicy();
    expect(policy.refusal('127.0.0.1', 80)).toBe(
      "Outbound requests to loopback addresses are refused (127.0.0.1); the executor's allowLoopback option permits them.",
    );
    expect(policy.refusal('10.1.2.3', 80)).toBe(
      "Outbound requests to private addresses are refused (10.1.2.3); the executor's allowPrivate option permits them.",
    );
    expect(policy.refusal('::ffff:a9fe:a9fe', 80)).toBe(
      outboundRefusedMessage('link-local', '::ffff:a9fe:a9fe'),
    );
    expect(policy.refusal('192.0.2.1', 80)).toBe(
      'Outbound requests to non-public addresses are refused (192.0.2.1).',
    );
    expect(policy.refusal('8.8.8.8', 443)).toBeUndefined();
  });

  test('each opt-in lets its own range through and no other', () => {
    const samples = { loopback: '::ffff:7f00:1', private: 'fd00:ec2::254', 'link-local': '169.254.169.254' };
    const optIns = {
      loopback: 'allowLoopback',
      private: 'allowPrivate',
      'link-local': 'allowLinkLocal',
    } as const;
    for (const [range, optIn] of Object.entries(optIns)) {
      const policy = new AddressPolicy({ [optIn]: true });
      for (const [other, address] of Object.entries(samples)) {
        expect(policy.refusal(address, 80) === undefined).toBe(other === range);
      }
      expect(policy.refusal('0.0.0.0', 80)).toBe(outboundRefusedMessage('non-public', '0.0.0.0'));
      expect(policy.refusal('::', 80)).toBe(outboundRefusedMessage('non-public', '::'));
    }
  });

  test('localhost names are loopback before any lookup, in any case and with trailing dots', () => {
    for (const name of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'a.b.LocalHost..']) {
      expect(isLocalhostName(name)).toBe(true);
      expect(new AddressPolicy().nameRefusal(name)).toBe(outboundRefusedMessage('loopback', name));
      expect(new AddressPolicy({ allowLoopback: true }).nameRefusal(name)).toBeUndefined();
    }
    for (const name of ['localhost.example.com', 'notlocalhost', 'example.com']) {
      expect(isLocalhostName(name)).toBe(false);
    }
  });

  test("this machine's own addresses are loopback, whatever range they are in and however spelled", () => {
    // Linux delivers a connection to any address of its own interfaces through loopback, to every
    // service listening on a wildcard address: a host's public address is a way to its loopback.
    const own = Object.values(networkInterfaces())
      .flat()
      .flatMap((info) => (info === undefined || info.internal ? [] : [info.address]));
    // This machine's eth0: fd00::2 (private) and fe80::fc:ff:fe00:1 (link-local), both let through
    // by their range's opt-in before.
    const judged = own.filter((address) => ['private', 'link-local', 'public'].includes(rangeOf(address)));
    expect(judged.length).toBeGreaterThan(0);
    const everythingButLoopback = new AddressPolicy({ allowPrivate: true, allowLinkLocal: true });
    for (const address of judged) {
      expect(everythingButLoopback.refusal(address, 80)).toBe(outboundRefusedMessage('loopback', address));
      const mapped = isIP(address) === 4 ? `::ffff:${address}` : undefined;
      if (mapped)
        expect(everythingButLoopback.refusal(mapped, 80)).toBe(outboundRefusedMessage('loopback', mapped));
    }
    // Loopback allowed, each is still judged by its own range too.
    const loopbackOnly = new AddressPolicy({ allowLoopback: true });
    for (const address of judged) {
      expect(loopbackOnly.refusal(address, 80) === undefined).toBe(rangeOf(address) === 'public');
    }
    const all = new AddressPolicy({ allowLoopback: true, allowPrivate: true, allowLinkLocal: true });
    for (const address of judged) expect(all.refusal(address, 80)).toBeUndefined();
  });

  test("the executor's own endpoints are refused on their port whatever the opt-ins, in every spelling", () => {
    const policy = new AddressPolicy({
      allowLoopback: true,
      allowPrivate: true,
      allowLinkLocal: true,
      ownEndpoints: [
        { address: '127.0.0.1', port: 8790 },
        { address: '127.0.0.0', prefix: 8, port: 9000 },
        { address: '::1', port: 9000 },
      ],
    });
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::7f00:1']) {
      expect(policy.refusal(address, 8790)).toBe(ownEndpointRefusedMessage(address, 8790));
    }
    expect(policy.refusal('127.0.0.1', 8791)).toBeUndefined();
    expect(policy.refusal('127.0.0.2', 8790)).toBeUndefined();
    expect(policy.refusal('127.9.9.9', 9000)).toBe(ownEndpointRefusedMessage('127.9.9.9', 9000));
    expect(policy.refusal('::1', 9000)).toBe(ownEndpointRefusedMessage('::1', 9000));
    expect(policy.refusal('8.8.8.8', 9000)).toBeUndefined();
  });
});
