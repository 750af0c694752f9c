import { isIP } from 'node:net';
import { addressRefusal, systemResolver } from '../../../platform/outbound/index.js';

const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'metadata.azure.internal', 'instance-data', 'instance-data.ec2.internal']);

/**
 * Addresses an endpoint URL may not name (contract §13), by the download checker's own rules
 * under the operator policy: link-local and the clouds' instance metadata services, whose
 * credentials a forged endpoint could read out, in any IPv6 spelling that carries them;
 * unspecified, multicast and broadcast, which name no server. Private and loopback addresses are
 * allowed: admins run GPUs on their own network. The same check runs again at connect time.
 */
function refusedAddress(ip: string): boolean {
  return isIP(ip) !== 0 && addressRefusal(ip, 'operator') !== null;
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
  return (await systemResolver(host)).map((a) => a.address);
}

/** The stored form: no trailing slash, so backends append their paths to it. */
export function normaliseEndpointUrl(raw: string): string {
  const url = new URL(raw);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
