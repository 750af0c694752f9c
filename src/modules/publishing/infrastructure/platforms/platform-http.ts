import type { Platform } from '../../../../core/index.js';
import { httpRequest, isOutboundError, type HttpRequestOptions } from '../../../../platform/outbound/index.js';
import {
  assertMediaAccepted, PublishFailure, type FailurePoint, type PlatformClientOptions, type PlatformTokens, type PublishMedia, type PublishRequest, type ReplyResult,
} from '../../application/ports/platform-client.js';

/**
 * The HTTP layer every platform adapter shares: one call = `httpRequest` with the adapter's time
 * budget, answers parsed as JSON, and every failure turned into a `PublishFailure` with the
 * contract's code. Adapters pass `irreversible: true` for the call that makes a post public: it
 * is sent once (no transport retry), and a timeout, reset or 5xx on it is an unknown outcome.
 */
export interface PlatformCall extends Omit<HttpRequestOptions, 'body'> {
  /** JSON body (sets Content-Type) ... */
  json?: unknown;
  /** ... or a form body (application/x-www-form-urlencoded) ... */
  form?: Record<string, string | undefined>;
  /** ... or raw bytes/text with your own Content-Type header. */
  body?: string | Uint8Array;
  bearer?: string;
  irreversible?: boolean;
  /** What the call does, for messages: "the media container". */
  what: string;
}

export interface PlatformReply<T> {
  status: number;
  headers: Headers;
  data: T;
}

export class PlatformHttp {
  constructor(
    /** "Instagram", "TikTok", ...: the name in failure messages. */
    readonly label: string,
    private readonly options: Pick<PlatformClientOptions, 'timeoutMs'>,
  ) {}

  async call<T = unknown>(url: string, call: PlatformCall): Promise<PlatformReply<T>> {
    const { json, form, bearer, irreversible, what, retries, ...transport } = call;
    const headers: Record<string, string> = { Accept: 'application/json', ...call.headers };
    let body = call.body;
    if (json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(json);
    } else if (form) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = formBody(form);
    }
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    try {
      const res = await httpRequest(url, {
        timeoutMs: this.options.timeoutMs,
        ...transport,
        retries: irreversible ? 0 : (retries ?? 2),
        headers,
        body,
      });
      const text = res.body.toString('utf8');
      return { status: res.status, headers: res.headers, data: (text ? parseJson(text, this.label, what, irreversible ? 'unknown' : 'before') : {}) as T };
    } catch (err) {
      throw this.failure(err, what, irreversible ? 'unknown' : 'before');
    }
  }

  /** Maps an outbound failure; `point` is where an unanswered irreversible call leaves the post. */
  failure(err: unknown, what: string, point: FailurePoint): Error {
    if (err instanceof PublishFailure || !isOutboundError(err)) return err as Error;
    const label = this.label;
    if (err.kind === 'http' && err.status !== undefined) {
      const detail = err.bodySnippet ? `: ${err.bodySnippet.slice(0, 300)}` : '';
      const message = `${label} answered ${err.status} to ${what}${detail}`;
      if (err.status === 401) return new PublishFailure('token_expired', message);
      if (err.status === 429) return new PublishFailure('rate_limited', message, 'before', err.retryAfterMs);
      if (err.status >= 500) return new PublishFailure('network_error', message, point);
      if (err.status === 400 || err.status === 403 || err.status === 413 || err.status === 415 || err.status === 422) {
        return new PublishFailure('content_rejected', message);
      }
      return new PublishFailure('unknown_error', message);
    }
    if (err.kind === 'timeout') return new PublishFailure('network_error', `${label} did not answer ${what} in time.`, point);
    if (err.kind === 'bad_response' || err.kind === 'too_large') return new PublishFailure('unknown_error', `${label} answered ${what} with something we cannot read.`, point);
    return new PublishFailure('network_error', `${label} could not be reached for ${what}: ${err.message}`, point);
  }
}

/**
 * One metric read: the quota reserve is asked first, and the call is sent once (a 429 goes back
 * to the reserve at once instead of being waited out here; the next sync reads again). A read
 * carries no content, so a refusal that is neither about the token nor the rate is unknown_error.
 */
export async function metricsCall<T>(send: (call: PlatformCall) => Promise<PlatformReply<T>>, call: PlatformCall, beforeCall?: () => Promise<void>): Promise<T> {
  await beforeCall?.();
  try {
    return (await send({ ...call, retries: 0 })).data;
  } catch (err) {
    throw readFailure(err);
  }
}

/** A failed read as a read failure: `content_rejected` means nothing for a read. */
export function readFailure(err: unknown): Error {
  if (err instanceof PublishFailure && err.code === 'content_rejected') return new PublishFailure('unknown_error', err.message);
  return err as Error;
}

/** A sent reply as the platform named it; an answer without its id leaves the outcome unknown (it may have gone out). */
export function sentReply(label: string, id: unknown, what: string): ReplyResult {
  if (typeof id !== 'string' || id === '') throw new PublishFailure('unknown_error', `${label} answered ${what} without its id.`, 'unknown');
  return { remoteMessageId: id };
}

/** A count as platforms send it (number or numeric string); null when absent or not a count. */
export function countOf(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.trunc(n) : null;
}

/** `items` in runs of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function formBody(form: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) params.set(k, v);
  return params.toString();
}

/** An unreadable success of the irreversible call may still have made the post: `point` says so. */
function parseJson(text: string, label: string, what: string, point: FailurePoint): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new PublishFailure('unknown_error', `${label} answered ${what} with something that is not JSON.`, point);
  }
}

/** `Authorization: Basic` for OAuth token endpoints that take client credentials that way. */
export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

export interface OAuthTokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
}

/**
 * The standard OAuth 2 token answer (RFC 6749 §5.1) as tokens. `previousRefresh` is kept when
 * the platform sends no new refresh token: a stored refresh token is never replaced by nothing.
 */
export function tokensFrom(
  answer: OAuthTokenAnswer,
  label: string,
  previousRefresh: string | null = null,
  now = Date.now(),
): PlatformTokens {
  if (typeof answer.access_token !== 'string' || answer.access_token === '') {
    throw new PublishFailure('unknown_error', `${label} sent a token answer without an access token.`);
  }
  const refresh = typeof answer.refresh_token === 'string' && answer.refresh_token !== '' ? answer.refresh_token : previousRefresh;
  const expiresIn = Number(answer.expires_in);
  return {
    accessToken: answer.access_token,
    refreshToken: refresh,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now + expiresIn * 1000) : null,
    scopes: typeof answer.scope === 'string' ? answer.scope.split(/[ ,]+/).filter(Boolean) : [],
  };
}

/** `base` with `params` set on its query string; undefined values are left out. */
export function withQuery(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * The platform's consent page for the authorization code flow. A `codeChallenge` is sent as
 * PKCE with S256 only: `plain` would hand the verifier to anyone who sees the URL.
 */
export function consentUrl(base: string, params: Record<string, string>, codeChallenge?: string): string {
  const pkce = codeChallenge ? { code_challenge: codeChallenge, code_challenge_method: 'S256' } : {};
  return withQuery(base, { ...params, ...pkce });
}

/** One call to a token endpoint, answering its body; a refusal goes through `tokenGrantFailure`. */
export async function grantCall<T>(http: PlatformHttp, url: string, call: PlatformCall): Promise<T> {
  try {
    // Sent once: codes are single-use and refresh tokens rotate, so a retry after a lost answer
    // would only be refused and could make a good connection look revoked.
    return (await http.call<T>(url, { ...call, retries: 0 })).data;
  } catch (err) {
    throw tokenGrantFailure(err, http.label);
  }
}

export interface TokenGrantExtras {
  /** Client authentication when the platform wants it as a header (`basicAuth`). */
  headers?: Record<string, string>;
  /** The call's name in failure messages; platforms' own wording is kept. */
  what?: string;
}

/** A form POSTed to the token endpoint (RFC 6749 §4.1.3, §6) and its standard answer as tokens. */
export async function tokenGrant(
  http: PlatformHttp,
  tokenUrl: string,
  form: Record<string, string | undefined>,
  previousRefresh: string | null,
  { headers, what = 'the token grant' }: TokenGrantExtras = {},
): Promise<PlatformTokens> {
  const answer = await grantCall<OAuthTokenAnswer>(http, tokenUrl, { what, method: 'POST', form, headers });
  return tokensFrom(answer, http.label, previousRefresh);
}

/**
 * A refused token grant (invalid_grant, revoked, 400/401 from the token endpoint) means the user
 * must connect again: `token_expired`. Anything else keeps its classification.
 */
export function tokenGrantFailure(err: unknown, label: string): Error {
  if (err instanceof PublishFailure && err.code === 'content_rejected') {
    return new PublishFailure('token_expired', `${label} refused the token grant: ${err.message}`);
  }
  return err as Error;
}

/** Waits `ms`; adapters poll through this so specs can shorten it via options. */
export function pause(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Clock skew allowed between our `since` and the time a platform gives a post, when reconciling. */
export const RECONCILE_SKEW_MS = 60_000;

/** The request's one video, refused before any call (the media rules table) when the post is anything else. */
export function onlyVideo(request: PublishRequest, platform: Platform, label: string): PublishMedia {
  assertMediaAccepted(platform, request);
  const video = request.media[0];
  assertVideoFile(video, label);
  return video;
}

/** The longest start of `text`, whole code points, whose summed `weigh` stays within `limit`. */
export function cutToWeight(text: string, limit: number, weigh: (char: string) => number): string {
  let out = '';
  let weight = 0;
  for (const char of text) {
    weight += weigh(char);
    if (weight > limit) break;
    out += char;
  }
  return out;
}

/**
 * The media's bytes from our own storage. A failure there is `network_error` before any call:
 * nothing was sent, so a later attempt may succeed. `failure` opens the message.
 */
export async function readMedia(media: PublishMedia, failure: string): Promise<Buffer> {
  try {
    return await media.read();
  } catch (err) {
    throw new PublishFailure('network_error', `${failure}: ${(err as Error).message}`);
  }
}

/** Video files platforms take; an animated GIF is a video item to us, not to them. */
const VIDEO_FILE_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm']);

/** Refuses, before any call, a video whose file type the platform cannot take. */
export function assertVideoFile(media: PublishMedia, label: string): void {
  if (!VIDEO_FILE_TYPES.has(media.contentType.toLowerCase())) {
    throw new PublishFailure('content_rejected', `${label} takes MP4, MOV or WebM video; this item's video is ${media.contentType}.`);
  }
}
