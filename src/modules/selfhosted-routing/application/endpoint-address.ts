import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses an endpoint URL may not name (contract §13): link-local and the clouds' instance
 * metadata services, whose credentials a forged endpoint could read out; unspecified, multicast
 * and broadcast, which name no server. Private and loopback addresses are allowed: admins run GPUs
 * on their own network.
 */
const REFUSED = new BlockList();
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, AWS/GCP/Azure/OpenStack metadata 169.254.169.254
REFUSED.addSubnet('0.0.0.0', 8, 'ipv4');
REFUSED.addSubnet('224.0.0.0', 3, 'ipv4'); // multicast, reserved, broadcast
REFUSED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
REFUSED.addSubnet('fe80::', 10, 'ipv6');
REFUSED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
REFUSED.addAddress('::', 'ipv6');
REFUSED.addSubnet('ff00::', 8, 'ipv6');

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'metadata.azure.internal', 'instance-data', 'instance-data.ec2.internal']);

function refusedAddress(ip: string): boolean {
  const family = isIP(ip);
  return family !== 0 && REFUSED.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Why an endpoint URL is refused, or null. A name is resolved once here, and refused when any of
 * its addresses is; a name that does not resolve yet is accepted (its health probe will say so).
 */
export async function endpointUrlRefusal(raw: string, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not carry credentials: set api_key instead';
  if (url.search || url.hash) return 'must not have a query or a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (METADATA_HOSTS.has(host)) return 'names a cloud metadata service';
  if (isIP(host)) return refusedAddress(host) ? 'is a link-local, metadata or non-unicast address' : null;
  const addresses = await resolve(host).catch(() => []);
  return addresses.some(refusedAddress) ? 'resolves to a link-local, metadata or non-unicast address' : null;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

/** The stored form: no trailing slash, so backends append their paths to it. */
export function normaliseEndpointUrl(raw: string): string {
  const url = new URL(raw);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
