import { lookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { readNodeBody } from './body-limit.js';
import { addressRefusal, type AddressPolicy } from './ip-ranges.js';
import { isOutboundError, OutboundError } from './outbound-error.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeDownloadOptions {
  maxBytes: number;
  /** Budget of the whole download: every hop, DNS and the body. */
  timeoutMs: number;
  /** Media types accepted (`video/mp4`, `image/*`); absent: any. The bytes still need checking. */
  allowedContentTypes?: string[];
  /** Hosts (name or name:port) that may resolve to private addresses; tests list their fakes. */
  allowHosts?: string[];
  signal?: AbortSignal;
  maxRedirects?: number;
  /** Replaced by tests to make a name resolve where they want. */
  resolve?: HostResolver;
}

export interface DownloadedFile {
  bytes: Buffer;
  /** The media type the server declared, without parameters, lower case. */
  contentType: string;
  /** Where the bytes came from, after redirects. */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const systemResolver: HostResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Downloads a URL a user gave us without letting it reach our own network (SSRF): only http(s),
 * no credentials, every address the name resolves to must be public, and the connection goes to
 * the address we vetted, so a second DNS answer (rebinding) cannot redirect it. Each redirect
 * is vetted the same way; at most `maxRedirects` (3) of them.
 */
export async function safeDownload(userUrl: string, opts: SafeDownloadOptions): Promise<DownloadedFile> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  try {
    return await follow(parseUserUrl(userUrl), opts, signal);
  } catch (err) {
    throw classify(err, opts.signal);
  }
}

async function follow(start: URL, opts: SafeDownloadOptions, signal: AbortSignal): Promise<DownloadedFile> {
  const maxRedirects = opts.maxRedirects ?? 3;
  let url = start;
  for (let hop = 0; ; hop++) {
    const target = await untilAborted(vet(url, opts), signal);
    const res = await requestPinned(url, target, signal);
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode ?? 0) && location) {
      res.resume();
      if (hop >= maxRedirects) throw new OutboundError('too_many_redirects', `The URL redirected more than ${maxRedirects} times.`);
      url = parseUserUrl(new URL(location, url).href);
      continue;
    }
    return receive(url, res, opts);
  }
}

export function parseUserUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'The URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('invalid_url', 'Only http and https URLs can be downloaded.');
  if (url.username !== '' || url.password !== '') throw new OutboundError('invalid_url', 'URLs with credentials are not accepted.');
  if (url.hostname === '') throw new OutboundError('invalid_url', 'The URL has no host.');
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

function isAllowedHost(url: URL, allowHosts: string[] = []): boolean {
  const host = bareHost(url);
  const withPort = `${host}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  return allowHosts.some((h) => {
    const entry = h.replace(/^\[|\]$/g, '').toLowerCase();
    return entry === host || entry === withPort || h.toLowerCase() === url.host.toLowerCase();
  });
}

/** Resolves the host once and refuses it when any of its addresses is not public. */
function vet(url: URL, opts: SafeDownloadOptions): Promise<ResolvedAddress> {
  return vetHost(url, { policy: 'public', resolve: opts.resolve, allowHosts: opts.allowHosts, what: 'downloads' });
}

export interface HostVetting {
  policy: AddressPolicy;
  resolve?: HostResolver;
  /** Hosts exempt from the address rules (tests' loopback fakes). */
  allowHosts?: string[];
  /** Who may not reach a refused address, for the message: "downloads", "self-hosted GPU calls". */
  what: string;
}

/**
 * Resolves the URL's host now and answers the address to connect to, refusing the host when any
 * of its addresses breaks the policy. Callers connect to exactly that address (`requestPinned`),
 * so a second DNS answer (rebinding) cannot move the connection elsewhere.
 */
export async function vetHost(url: URL, vetting: HostVetting): Promise<ResolvedAddress> {
  const host = bareHost(url);
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal as 4 | 6 }] : await (vetting.resolve ?? systemResolver)(host);
  if (addresses.length === 0) throw new OutboundError('network', `${url.hostname} does not resolve.`);
  if (isAllowedHost(url, vetting.allowHosts)) return addresses[0];
  for (const { address } of addresses) {
    const why = addressRefusal(address, vetting.policy);
    if (why) throw new OutboundError('blocked', `${url.hostname} points to a ${why} address, which ${vetting.what} may not reach.`);
  }
  return addresses[0];
}

/** Hands the socket the vetted address whatever name it asks for, so DNS is asked only once. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

export interface PinnedRequest {
  /** A keep-alive agent for this vetted address (`PinnedAgents`); by default a connection of its own. */
  agent?: http.Agent;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * Keep-alive agents, one per vetted address (and scheme, port and name): a pooled connection is
 * only ever reused for the address it was opened to, which was vetted, so reuse moves no request
 * past the SSRF check (each request still vets the name first and picks the agent by the answer).
 * Idle connections close after `idleMs`, before a typical server's keep-alive gives up on them. The
 * least recently used agent is forgotten past `maxAgents` (its idle sockets still time out).
 */
export class PinnedAgents {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly opts: { maxAgents: number; maxSockets: number; idleMs: number }) {}

  for(url: URL, target: ResolvedAddress): http.Agent {
    const key = `${url.protocol}//${target.address}:${url.port}/${url.hostname}`;
    const known = this.agents.get(key);
    this.agents.delete(key);
    const options = { keepAlive: true, maxSockets: this.opts.maxSockets, timeout: this.opts.idleMs, scheduling: 'lifo' as const };
    const agent = known ?? (url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options));
    this.agents.set(key, agent);
    if (this.agents.size > this.opts.maxAgents) this.agents.delete(this.agents.keys().next().value!);
    return agent;
  }

  /** Closes every pooled connection (at a stop). */
  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}

/** One request to the vetted address, whatever the name resolves to now; redirects are the caller's to judge. */
export function requestPinned(url: URL, target: ResolvedAddress, signal: AbortSignal, request: PinnedRequest = {}): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  const headers = request.headers ?? { Accept: '*/*', 'User-Agent': 'PersonaStudio-Fetcher/1.0' };
  // A declared length rather than chunked encoding, which some servers and proxies in front of GPUs refuse.
  const length = request.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(request.body)) };
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: request.method ?? 'GET',
      agent: request.agent ?? false,
      signal,
      lookup: pinnedLookup(target),
      headers: { ...headers, ...length },
    });
    req.on('response', resolve);
    // Whether the connection was a kept-alive one reused: a reset on it may mean the server closed it idle.
    req.on('error', (err: Error) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(request.body);
  });
}

async function receive(url: URL, res: IncomingMessage, opts: SafeDownloadOptions): Promise<DownloadedFile> {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 299) {
    res.resume();
    throw new OutboundError('http', `${url.host} answered ${status}.`, { status });
  }
  const contentType = (res.headers['content-type'] ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
  if (opts.allowedContentTypes && !typeAllowed(contentType, opts.allowedContentTypes)) {
    res.destroy();
    throw new OutboundError('unsupported_type', `The URL serves ${contentType}, which is not accepted here.`);
  }
  const bytes = await readNodeBody(res, opts.maxBytes, res.headers['content-length'], 'The download');
  return { bytes, contentType, url: url.href };
}

function typeAllowed(type: string, allowed: string[]): boolean {
  return allowed.some((a) => {
    const want = a.toLowerCase();
    return want.endsWith('/*') ? type.startsWith(want.slice(0, -1)) : type === want;
  });
}

/** DNS look-ups cannot be cancelled; stop waiting for one when the download is given up. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function classify(err: unknown, callerSignal?: AbortSignal): OutboundError {
  if (isOutboundError(err)) return err;
  if (callerSignal?.aborted) return new OutboundError('aborted', 'The download was cancelled.', { cause: err });
  const e = err as { name?: string; code?: string; message?: string } | undefined;
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return new OutboundError('timeout', 'The download timed out.', { cause: err });
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return new OutboundError('network', 'The URL\'s host does not resolve.', { cause: err });
  return new OutboundError('network', `The download failed: ${e?.code ?? e?.message ?? String(err)}.`, { cause: err });
}
