import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { readNodeBody, readNodeSnippet, readWebBody, readWebSnippet } from './body-limit.js';
import type { AddressPolicy } from './ip-ranges.js';
import { isOutboundError, OutboundError } from './outbound-error.js';
import { requestPinned, vetHost, type HostResolver } from './safe-download.js';
import { abortableSleep, isRetryableStatus, parseRetryAfter, RETRY_DEFAULTS, retryDelay, type RetryOptions } from './retry-policy.js';

export interface HttpRequestOptions extends RetryOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Budget of each attempt, body included. */
  timeoutMs?: number;
  /** Largest response body accepted; bigger ones fail as `too_large` without being read whole. */
  maxBytes?: number;
  signal?: AbortSignal;
  /**
   * For servers an admin configured but that answer on behalf of others (self-hosted GPUs): the
   * name is resolved and vetted under `policy` at every connect, the connection goes to the vetted
   * address, and a redirect is never followed (it is an `http` failure).
   */
  guard?: { policy: AddressPolicy; resolve?: HostResolver; what: string };
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The final URL, after any redirects. */
  url: string;
}

export const HTTP_DEFAULTS = { timeoutMs: 30_000, maxBytes: 16 * 1024 * 1024 } as const;

const logger = new Logger('Outbound');

/**
 * One HTTP exchange with an operator-configured service (never a user-supplied URL: use
 * `safeDownload` for those). Answers 2xx; anything else is an `OutboundError`. Retries only
 * what may pass on its own: 429, 5xx and network errors, a bounded number of times.
 */
export async function httpRequest(url: string, opts: HttpRequestOptions = {}): Promise<HttpResponse> {
  const retries = opts.retries ?? RETRY_DEFAULTS.retries;
  const sleep = opts.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce(url, opts);
    } catch (err) {
      const failure = classify(err, opts.signal);
      failure.attempts = attempt;
      if (!failure.retryable || attempt > retries) throw failure;
      const delay = retryDelay(attempt, opts, failure.retryAfterMs);
      logger.warn(`${opts.method ?? 'GET'} ${hostOf(url)} failed (${failure.kind}${failure.status ? ` ${failure.status}` : ''}); retry ${attempt}/${retries} in ${delay} ms`);
      try {
        await sleep(delay, opts.signal);
      } catch (abortErr) {
        throw classify(abortErr, opts.signal);
      }
    }
  }
}

async function attemptOnce(url: string, opts: HttpRequestOptions): Promise<HttpResponse> {
  const timeoutMs = opts.timeoutMs ?? HTTP_DEFAULTS.timeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  if (opts.guard) {
    // Node's request fails with a bare "aborted" when its signal fires mid-answer: say which signal it was.
    return guardedAttempt(url, opts, opts.guard, signal).catch((err: unknown) => {
      if (timeout.aborted && !opts.signal?.aborted && !isOutboundError(err)) throw new OutboundError('timeout', 'The request timed out.', { cause: err });
      throw err;
    });
  }
  const res = await fetch(url, { method: opts.method ?? 'GET', headers: opts.headers, body: opts.body, signal });
  if (res.status < 200 || res.status > 299) {
    const bodySnippet = await readWebSnippet(res);
    throw new OutboundError('http', `${hostOf(url)} answered ${res.status}.`, {
      status: res.status,
      retryable: isRetryableStatus(res.status),
      retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
      bodySnippet,
    });
  }
  const body = await readWebBody(res, opts.maxBytes ?? HTTP_DEFAULTS.maxBytes, `The answer from ${hostOf(url)}`);
  return { status: res.status, headers: res.headers, body, url: res.url || url };
}

async function guardedAttempt(url: string, opts: HttpRequestOptions, guard: NonNullable<HttpRequestOptions['guard']>, signal: AbortSignal): Promise<HttpResponse> {
  const target = new URL(url);
  const address = await vetHost(target, guard);
  const res = await requestPinned(target, address, signal, { method: opts.method ?? 'GET', headers: { 'User-Agent': 'PersonaStudio/1.0', ...opts.headers }, body: opts.body });
  const status = res.statusCode ?? 0;
  const headers = nodeHeaders(res);
  if (status < 200 || status > 299) {
    const bodySnippet = await readNodeSnippet(res);
    const redirect = status >= 300 && status <= 399;
    throw new OutboundError('http', `${hostOf(url)} answered ${status}${redirect ? ' (redirects are not followed)' : ''}.`, {
      status,
      retryable: isRetryableStatus(status),
      retryAfterMs: parseRetryAfter(headers.get('retry-after')),
      bodySnippet,
    });
  }
  const body = await readNodeBody(res, opts.maxBytes ?? HTTP_DEFAULTS.maxBytes, res.headers['content-length'], `The answer from ${hostOf(url)}`);
  return { status, headers, body, url };
}

function nodeHeaders(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}

/** Turns whatever fetch threw into an OutboundError; a caller's abort is never retried. */
function classify(err: unknown, callerSignal?: AbortSignal): OutboundError {
  if (isOutboundError(err)) return err;
  if (callerSignal?.aborted) return new OutboundError('aborted', 'The request was cancelled.', { cause: err });
  const name = (err as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new OutboundError('timeout', 'The request timed out.', { cause: err });
  }
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const detail = cause?.code ?? cause?.message ?? (err as Error | undefined)?.message ?? String(err);
  return new OutboundError('network', `The request failed: ${detail}.`, { retryable: true, cause: err });
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the service';
  }
}

export interface JsonRequestOptions extends Omit<HttpRequestOptions, 'body'> {
  /** Sent as the JSON body, with the matching Content-Type. */
  json?: unknown;
}

/** `httpRequest` that sends and expects JSON; an answer that is not JSON is `bad_response`. */
export async function httpJson<T = unknown>(url: string, opts: JsonRequestOptions = {}): Promise<{ status: number; headers: Headers; data: T }> {
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers };
  if (opts.json !== undefined) headers['Content-Type'] = 'application/json';
  const res = await httpRequest(url, { ...opts, headers, body: opts.json === undefined ? undefined : JSON.stringify(opts.json) });
  return { status: res.status, headers: res.headers, data: parseJson<T>(res.body, url) };
}

export function parseJson<T = unknown>(body: Buffer, url = ''): T {
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch (err) {
    throw new OutboundError('bad_response', `${hostOf(url)} answered with something that is not JSON.`, { cause: err });
  }
}
