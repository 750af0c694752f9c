/**
 * What a session list and a new-device alert call the device a session was started from: a short
 * readable name parsed from the User-Agent header ("Firefox on macOS"), and the network it came from
 * as a prefix (an IPv4 /24, an IPv6 /48), never the whole address.
 */

/** Browsers and clients, most specific first: Edge and Opera also say "Chrome", Chrome also says "Safari". */
const CLIENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\b(?:OPR|Opera|OPiOS)\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex Browser'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\b(?:Firefox|FxiOS)\//, 'Firefox'],
  [/\b(?:Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\b(?:MSIE |Trident\/)/, 'Internet Explorer'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/\bcurl\//i, 'curl'],
  [/\bPostmanRuntime\//, 'Postman'],
  [/\binsomnia\//i, 'Insomnia'],
  [/\bpython-requests\/|\bpython-urllib|\baiohttp\//i, 'Python'],
  [/\bokhttp\//i, 'OkHttp'],
  [/\bGo-http-client\//, 'Go'],
  [/\b(?:node-fetch|undici|axios|node)\b/i, 'Node.js'],
  [/\bWget\//i, 'Wget'],
];

/** Operating systems, most specific first: an iPad says "like Mac OS X", Android says "Linux". */
const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\b(?:Macintosh|Mac OS X)\b/, 'macOS'],
  [/\b(?:Linux|X11|Ubuntu|Fedora)\b/, 'Linux'],
];

export const UNKNOWN_DEVICE = 'Unknown device';

/** Longer headers are not parsed: nothing real is that long, and a hostile one costs no regex time. */
const USER_AGENT_PARSED = 512;

/** "Firefox on macOS", "Chrome on Android", "curl", "Unknown browser on Windows", or "Unknown device". */
export function deviceName(userAgent: string | null | undefined): string {
  const ua = (userAgent ?? '').slice(0, USER_AGENT_PARSED);
  const client = CLIENTS.find(([re]) => re.test(ua))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  if (client && system) return `${client} on ${system}`;
  if (client) return client;
  if (system) return `Unknown browser on ${system}`;
  return UNKNOWN_DEVICE;
}

/**
 * The network of an address: `203.0.113.0/24` for IPv4 (an IPv4-mapped IPv6 address counts as
 * IPv4), `2001:db8:1::/48` for IPv6; null for no address or something that is not one.
 */
export function ipPrefix(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const address = ip.trim().replace(/%.*$/, ''); // a zone index (fe80::1%eth0) is not part of the network
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = ipv4Octets(mapped ? mapped[1] : address);
  if (v4) return `${v4[0]}.${v4[1]}.${v4[2]}.0/24`;
  const v6 = ipv6Groups(address);
  if (!v6) return null;
  const head = v6.slice(0, 3);
  while (head.length > 0 && head[head.length - 1] === 0) head.pop();
  return `${head.map((g) => g.toString(16)).join(':')}::/48`;
}

function ipv4Octets(s: string): number[] | null {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted IPv4 part), or null. */
function ipv6Groups(s: string): number[] | null {
  if (!s.includes(':')) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    const pieces = part.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = ipv4Octets(piece);
        if (!v4) return null;
        groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
        groups.push(parseInt(piece, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

/** A device as the alert compares it: the parsed name and the network, not the exact header or address. */
export interface DeviceFingerprint {
  device: string;
  ipPrefix: string | null;
}

export function fingerprintOf(client: { userAgent?: string | null; ip?: string | null }): DeviceFingerprint {
  return { device: deviceName(client.userAgent), ipPrefix: ipPrefix(client.ip) };
}

/**
 * Whether a sign-in is from a device the user has used before: the same parsed device name from the
 * same network. A browser update (new version number) or a new address in the same /24 is not new;
 * another browser, another OS or another network is.
 */
export function isKnownDevice(current: DeviceFingerprint, seen: readonly DeviceFingerprint[]): boolean {
  return seen.some((s) => s.device === current.device && s.ipPrefix === current.ipPrefix);
}
