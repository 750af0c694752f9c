import { isIPv4, isIPv6 } from 'node:net';

/**
 * A prefix of an address as bytes: the first `bits` bits of `bytes` must match. `internal` ranges
 * are the operator's own network (private, loopback): refused for user-supplied URLs, allowed for
 * servers an admin configures. The rest name no server anyone may reach from here.
 */
interface Range {
  bytes: number[];
  bits: number;
  why: string;
  internal?: boolean;
}

/**
 * Whom the address is vetted for. `public`: a URL a user gave us, only public addresses.
 * `operator`: a server an admin configured (a self-hosted GPU), which may sit on the private
 * network, but never on link-local, metadata or non-unicast addresses.
 */
export type AddressPolicy = 'public' | 'operator';

/** Cloud instance-metadata services that sit inside otherwise internal ranges. */
const METADATA_ADDRESSES: Array<{ bytes: number[]; why: string }> = [
  { bytes: [100, 100, 100, 200], why: 'Alibaba Cloud metadata' },
  { bytes: v6Prefix([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]), why: 'AWS metadata' },
];

const V4_FORBIDDEN: Range[] = [
  { bytes: [0, 0, 0, 0], bits: 8, why: 'unspecified' },
  { bytes: [10, 0, 0, 0], bits: 8, why: 'private', internal: true },
  { bytes: [100, 64, 0, 0], bits: 10, why: 'carrier-grade NAT', internal: true },
  { bytes: [127, 0, 0, 0], bits: 8, why: 'loopback', internal: true },
  { bytes: [169, 254, 0, 0], bits: 16, why: 'link-local' },
  { bytes: [172, 16, 0, 0], bits: 12, why: 'private', internal: true },
  { bytes: [192, 0, 0, 0], bits: 24, why: 'IETF protocol assignments' },
  { bytes: [192, 0, 2, 0], bits: 24, why: 'documentation' },
  { bytes: [192, 88, 99, 0], bits: 24, why: '6to4 relay' },
  { bytes: [192, 168, 0, 0], bits: 16, why: 'private', internal: true },
  { bytes: [198, 18, 0, 0], bits: 15, why: 'benchmarking', internal: true },
  { bytes: [198, 51, 100, 0], bits: 24, why: 'documentation' },
  { bytes: [203, 0, 113, 0], bits: 24, why: 'documentation' },
  { bytes: [224, 0, 0, 0], bits: 4, why: 'multicast' },
  { bytes: [240, 0, 0, 0], bits: 4, why: 'reserved or broadcast' },
];

const V6_FORBIDDEN: Range[] = [
  { bytes: v6Prefix([0, 0, 0, 0, 0, 0, 0, 0]), bits: 128, why: 'unspecified' },
  { bytes: v6Prefix([0, 0, 0, 0, 0, 0, 0, 1]), bits: 128, why: 'loopback', internal: true },
  { bytes: v6Prefix([0x64, 0xff9b, 1]), bits: 48, why: 'local-use NAT64' },
  { bytes: v6Prefix([0x100]), bits: 64, why: 'discard' },
  { bytes: v6Prefix([0x2001, 0]), bits: 32, why: 'Teredo' },
  { bytes: v6Prefix([0x2001, 0xdb8]), bits: 32, why: 'documentation' },
  { bytes: v6Prefix([0xfc00]), bits: 7, why: 'unique local', internal: true },
  { bytes: v6Prefix([0xfe80]), bits: 10, why: 'link-local' },
  { bytes: v6Prefix([0xfec0]), bits: 10, why: 'site-local' },
  { bytes: v6Prefix([0xff00]), bits: 8, why: 'multicast' },
];

/**
 * IPv6 forms that carry an IPv4 address: the embedded address decides. IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d),
 * NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::).
 */
const V6_EMBEDDING_V4: Array<Range & { at: number }> = [
  { bytes: v6Prefix([0, 0, 0, 0, 0, 0xffff]), bits: 96, at: 12, why: 'IPv4-mapped' },
  { bytes: v6Prefix([0, 0, 0, 0, 0xffff, 0]), bits: 96, at: 12, why: 'IPv4-translated' },
  { bytes: v6Prefix([0, 0, 0, 0, 0, 0]), bits: 96, at: 12, why: 'IPv4-compatible' },
  { bytes: v6Prefix([0x64, 0xff9b, 0, 0, 0, 0]), bits: 96, at: 12, why: 'NAT64' },
  { bytes: v6Prefix([0x2002]), bits: 16, at: 2, why: '6to4' },
];

function v6Prefix(groups: number[]): number[] {
  const bytes: number[] = [];
  for (const g of groups) bytes.push(g >> 8, g & 0xff);
  while (bytes.length < 16) bytes.push(0);
  return bytes;
}

function matches(addr: number[], range: Range): boolean {
  for (let bit = 0; bit < range.bits; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if ((addr[byte] & mask) !== (range.bytes[byte] & mask)) return false;
  }
  return true;
}

function parseV4(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** 16 bytes of an IPv6 address, including the dotted-quad tail form. */
export function parseV6(ip: string): number[] {
  let text = ip.split('%')[0].toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = parseV4(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return v6Prefix([...headGroups, ...fill, ...tailGroups].map((g) => parseInt(g, 16)));
}

/** Why an address must not be reached from a user-supplied URL; null when it is a public address. */
export function forbiddenReason(ip: string): string | null {
  return addressRefusal(ip, 'public');
}

/**
 * Why an address may not be reached under `policy`, or null. The one rule set for every outbound
 * check: an IPv6 form that carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4)
 * is judged by the address it carries, so no spelling of a metadata address slips through.
 */
export function addressRefusal(ip: string, policy: AddressPolicy): string | null {
  const address = ip.replace(/^\[|\]$/g, '');
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (family === 0) return 'not an IP address';
  const bytes = family === 4 ? parseV4(address) : parseV6(address);
  const metadata = METADATA_ADDRESSES.find((m) => m.bytes.length === bytes.length && m.bytes.every((b, i) => b === bytes[i]));
  if (metadata) return metadata.why;
  const range = (family === 4 ? V4_FORBIDDEN : V6_FORBIDDEN).find((r) => matches(bytes, r));
  // A direct match decides: ::1 is loopback, not 0.0.0.1 carried in an IPv4-compatible form.
  if (range) return range.internal && policy === 'operator' ? null : range.why;
  if (family === 4) return null;
  for (const form of V6_EMBEDDING_V4) {
    if (!matches(bytes, form)) continue;
    const inner = addressRefusal(bytes.slice(form.at, form.at + 4).join('.'), policy);
    if (inner) return `${form.why} ${inner}`;
  }
  return null;
}
