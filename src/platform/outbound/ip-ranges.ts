import { isIPv4, isIPv6 } from 'node:net';

/** A prefix of an address as bytes: the first `bits` bits of `bytes` must match. */
interface Range {
  bytes: number[];
  bits: number;
  why: string;
}

const V4_FORBIDDEN: Range[] = [
  { bytes: [0, 0, 0, 0], bits: 8, why: 'unspecified' },
  { bytes: [10, 0, 0, 0], bits: 8, why: 'private' },
  { bytes: [100, 64, 0, 0], bits: 10, why: 'carrier-grade NAT' },
  { bytes: [127, 0, 0, 0], bits: 8, why: 'loopback' },
  { bytes: [169, 254, 0, 0], bits: 16, why: 'link-local' },
  { bytes: [172, 16, 0, 0], bits: 12, why: 'private' },
  { bytes: [192, 0, 0, 0], bits: 24, why: 'IETF protocol assignments' },
  { bytes: [192, 0, 2, 0], bits: 24, why: 'documentation' },
  { bytes: [192, 88, 99, 0], bits: 24, why: '6to4 relay' },
  { bytes: [192, 168, 0, 0], bits: 16, why: 'private' },
  { bytes: [198, 18, 0, 0], bits: 15, why: 'benchmarking' },
  { bytes: [198, 51, 100, 0], bits: 24, why: 'documentation' },
  { bytes: [203, 0, 113, 0], bits: 24, why: 'documentation' },
  { bytes: [224, 0, 0, 0], bits: 4, why: 'multicast' },
  { bytes: [240, 0, 0, 0], bits: 4, why: 'reserved or broadcast' },
];

const V6_FORBIDDEN: Range[] = [
  { bytes: v6Prefix([0, 0, 0, 0, 0, 0, 0, 0]), bits: 128, why: 'unspecified' },
  { bytes: v6Prefix([0, 0, 0, 0, 0, 0, 0, 1]), bits: 128, why: 'loopback' },
  { bytes: v6Prefix([0x64, 0xff9b, 1]), bits: 48, why: 'local-use NAT64' },
  { bytes: v6Prefix([0x100]), bits: 64, why: 'discard' },
  { bytes: v6Prefix([0x2001, 0]), bits: 32, why: 'Teredo' },
  { bytes: v6Prefix([0x2001, 0xdb8]), bits: 32, why: 'documentation' },
  { bytes: v6Prefix([0xfc00]), bits: 7, why: 'unique local' },
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
  const address = ip.replace(/^\[|\]$/g, '');
  if (isIPv4(address)) {
    const bytes = parseV4(address);
    return V4_FORBIDDEN.find((r) => matches(bytes, r))?.why ?? null;
  }
  if (!isIPv6(address)) return 'not an IP address';
  const bytes = parseV6(address);
  const direct = V6_FORBIDDEN.find((r) => matches(bytes, r));
  if (direct) return direct.why;
  for (const form of V6_EMBEDDING_V4) {
    if (!matches(bytes, form)) continue;
    const inner = forbiddenReason(bytes.slice(form.at, form.at + 4).join('.'));
    if (inner) return `${form.why} ${inner}`;
  }
  return null;
}
