import { describe, expect, it } from '@jest/globals';
import { addressRefusal, forbiddenReason, parseV6 } from './ip-ranges.js';

describe('forbiddenReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated private'],
    ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
    ['64:ff9b::a00:1', 'NAT64 private'],
    ['64:ff9b:1::8.8.8.8', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['2002:c0a8:101::1', '6to4 private'],
  ])('refuses %s (%s)', (ip, why) => {
    expect(forbiddenReason(ip)).toBe(why);
  });

  it.each(['8.8.8.8', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::'])(
    'lets the public address %s through',
    (ip) => {
      expect(forbiddenReason(ip)).toBeNull();
    },
  );

  it('refuses what is not an address at all', () => {
    expect(forbiddenReason('example.com')).toBe('not an IP address');
  });

  it('reads every IPv6 spelling into the same 16 bytes', () => {
    const loopback = [...new Array<number>(15).fill(0), 1];
    expect(parseV6('::1')).toEqual(loopback);
    expect(parseV6('0:0:0:0:0:0:0:1')).toEqual(loopback);
    expect(parseV6('::0.0.0.1')).toEqual(loopback);
    expect(parseV6('fe80::1%eth0').slice(0, 2)).toEqual([0xfe, 0x80]);
  });
});

describe('addressRefusal', () => {
  const metadataSpellings = [
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['64:ff9b::169.254.169.254', 'NAT64 link-local'],
    ['[64:ff9b::169.254.169.254]', 'NAT64 link-local'],
    ['::169.254.169.254', 'IPv4-compatible link-local'],
    ['::ffff:0:169.254.169.254', 'IPv4-translated link-local'],
    ['2002:a9fe:a9fe::', '6to4 link-local'],
    ['100.100.100.200', 'Alibaba Cloud metadata'],
    ['fd00:ec2::254', 'AWS metadata'],
    ['::ffff:100.100.100.200', 'IPv4-mapped Alibaba Cloud metadata'],
  ];

  it.each(metadataSpellings)('refuses the metadata spelling %s (%s) under both policies', (ip, why) => {
    expect(addressRefusal(ip, 'operator')).toBe(why);
    expect(addressRefusal(ip, 'public')).not.toBeNull();
  });

  it.each(['0.0.0.0', '::', '224.0.0.1', '255.255.255.255', 'fe80::1', 'ff02::1', '64:ff9b::0.0.0.0', '2002:e000:1::'])('refuses the non-unicast or link-local %s to operators too', (ip) => {
    expect(addressRefusal(ip, 'operator')).not.toBeNull();
  });

  it.each(['10.0.4.12', '127.0.0.1', '192.168.1.20', '172.20.0.3', '100.64.1.1', '::1', 'fd12:3456::1', '::ffff:10.0.0.1', '8.8.8.8', '2606:4700::1111'])(
    'lets an operator reach the private, loopback or public %s, which user URLs may reach only when public',
    (ip) => {
      expect(addressRefusal(ip, 'operator')).toBeNull();
      expect(addressRefusal(ip, 'public')).toBe(forbiddenReason(ip));
    },
  );
});
