import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../read-body.js';

/**
 * The shared machinery of the five platform fakes: an HTTP server on 127.0.0.1 with a tiny
 * router, an OAuth 2 authorization server (consent redirect, codes with PKCE, access and refresh
 * tokens that expire), a record of every request and every post, and the failure switches the
 * tests flip. Each platform fake (instagram.ts, tiktok.ts, ...) adds its own API routes on top.
 */

/**
 * What the fake does from now on, for requests whose route is tagged with `on` (default: the
 * irreversible publish call). `fail`: answer `status` (with `body`) `times` times. `rate_limit`:
 * answer 429 with Retry-After `times` times. `hang`: never answer. `lose_reply`: do the work
 * (record the post) and then answer 500 (`times` times): the outcome is unknown to the caller.
 */
export type FakePlatformMode =
  | { kind: 'ok' }
  | { kind: 'fail'; status: number; times: number; body?: unknown; on?: RouteTag }
  | { kind: 'rate_limit'; times: number; retryAfterSeconds?: number; on?: RouteTag }
  | { kind: 'hang'; on?: RouteTag }
  | { kind: 'lose_reply'; times: number };

/**
 * `publish`: the irreversible call. `prepare`: uploads, containers, inits. `oauth`: token endpoint.
 * `read`: look-ups. `metrics`: follower counts and post metrics (counted in `metricCalls`).
 * `reply`: a reply sent (comment reply or direct message; irreversible too). `comments`: polling
 * reads of comments and mentions.
 */
export type RouteTag = 'publish' | 'prepare' | 'oauth' | 'read' | 'metrics' | 'reply' | 'comments';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** One post as the platform made it public. */
export interface RecordedPost {
  id: string;
  accountId: string;
  text: string;
  title?: string;
  mediaUrls: string[];
  boardId?: string;
  createdAt: Date;
  /** Platform-specific extras (media type, privacy, ...). */
  extra: Record<string, unknown>;
}

/** One reply as the platform sent it: under a comment (or mention), or in a direct-message thread. */
export interface RecordedReply {
  channel: 'comment' | 'dm';
  /** The comment (tweet) answered, or the person written to. */
  target: string;
  text: string;
  /** The platform's id of the reply (what the adapter answers as `remoteMessageId`). */
  id: string;
  /** The account that sent it. */
  accountId: string;
  createdAt: Date;
}

export interface MediaFetch {
  url: string;
  status: number;
  contentType: string | null;
  nosniff: boolean;
  cacheControl: string | null;
  bytes: Buffer;
  error?: string;
}

export interface IssuedToken {
  accessToken: string;
  refreshToken: string | null;
  accountId: string;
  scopes: string[];
  expiresAt: number;
}

export interface FakeRequest extends RecordedRequest {
  /** The JSON body; refused (400) unless sent as `application/json` and valid, an empty body included. */
  json<T = any>(): T;
  /** The form body; refused (400) when a body is sent as anything but `application/x-www-form-urlencoded`. */
  form(): URLSearchParams;
  params: Record<string, string>;
  /** The account of a valid `Authorization: Bearer` token, else undefined. */
  account?: string;
}

export type FakeHandler = (req: FakeRequest, res: ServerResponse) => void | Promise<void>;

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  tag: RouteTag;
  /** The tag of one request, where a route does two things (X's POST /2/tweets: a post or a reply). */
  tagOf?: (req: FakeRequest) => RouteTag;
  /** Answers 401 itself when the bearer token is missing, unknown or expired. */
  auth: boolean;
  /** The token must hold every scope of `all` and one of `any` (when given), as the platform documents the route. */
  scopes?: RouteScopes;
  handler: FakeHandler;
}

export interface RouteScopes {
  all?: string[];
  any?: string[];
}

/** A request the platform refuses before any handler runs it (a body it cannot read). */
export class FakeBadRequest extends Error {}

/** Whether a token's scopes satisfy a route's. */
export function scopesGrant(granted: readonly string[], needed: RouteScopes | undefined): boolean {
  if (!needed) return true;
  return (needed.all ?? []).every((s) => granted.includes(s)) && (!needed.any || needed.any.some((s) => granted.includes(s)));
}

export interface FakePlatformOptions {
  clientId: string;
  clientSecret: string;
  /** Seconds an access token lives. */
  accessTtlSeconds?: number;
  /** Whether the platform issues refresh tokens. */
  refreshTokens?: boolean;
  /**
   * When refresh tokens are issued only on request (X: the `offline.access` scope; Google:
   * `access_type=offline`): decides from the consent's scopes and authorize query.
   */
  refreshTokenWanted?: (scopes: string[], authorize: URLSearchParams) => boolean;
  /** The account that consents at the authorize endpoint. */
  accountId?: string;
  accountName?: string;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function contentTypeOf(recorded: RecordedRequest): string {
  return String(recorded.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** Reads the body as the platform would: only JSON sent as JSON, never an empty body. */
function parseJson(recorded: RecordedRequest): any {
  if (contentTypeOf(recorded) !== 'application/json') throw new FakeBadRequest(`The body must be sent as application/json, not ${contentTypeOf(recorded) || 'no content type'}.`);
  if (recorded.body.length === 0) throw new FakeBadRequest('The request body is empty; a JSON object is required.');
  try {
    return JSON.parse(recorded.body.toString('utf8'));
  } catch {
    throw new FakeBadRequest('The request body is not valid JSON.');
  }
}

/** A form body, only when sent as one; no body at all is an empty form. */
function parseForm(recorded: RecordedRequest): URLSearchParams {
  if (recorded.body.length === 0) return new URLSearchParams();
  if (contentTypeOf(recorded) !== 'application/x-www-form-urlencoded') throw new FakeBadRequest(`The body must be sent as application/x-www-form-urlencoded, not ${contentTypeOf(recorded) || 'no content type'}.`);
  return new URLSearchParams(recorded.body.toString('utf8'));
}

/** A route's tag for this request; a body it cannot read leaves the route's own (the handler refuses it). */
function tagOf(route: Route, req: FakeRequest): RouteTag {
  try {
    return route.tagOf?.(req) ?? route.tag;
  } catch {
    return route.tag;
  }
}

function compile(path: string): { pattern: RegExp; keys: string[] } {
  const keys: string[] = [];
  // A trailing slash is optional, as platforms treat it (and as our configuration trims it).
  const source = path.replace(/\/+$/, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_m, key: string) => {
    keys.push(key);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}/?$`), keys };
}

export class FakePlatform {
  url = '';
  readonly requests: RecordedRequest[] = [];
  readonly posts: RecordedPost[] = [];
  /** Every reply sent, in order: a test asserts a reply went out exactly once here. */
  readonly replies: RecordedReply[] = [];
  /** What fetching each media URL a post was given answered (see `fetchMedia`). */
  readonly mediaFetches: MediaFetch[] = [];
  readonly tokens = new Map<string, IssuedToken>();
  readonly refreshTokens = new Map<string, IssuedToken>();
  /** When true, every refresh-token grant is refused with invalid_grant. */
  refuseRefresh = false;
  /** Metric calls received (followers and post metrics), 429s included. */
  metricCalls = 0;
  /** The account's followers as the metric endpoints serve them; null: the platform hides them. */
  followers: number | null = 0;
  /** Per remote post id, its numbers under the platform's own metric names (`like_count`, ...). */
  readonly metrics = new Map<string, Record<string, number>>();
  revoked: string[] = [];
  /** How this platform answers a body it cannot read; each platform fake sets its own error shape. */
  refuseBody: (res: ServerResponse, message: string) => void = (res, message) => json(res, 400, { error: 'invalid_request', error_description: message });
  /** How this platform answers a token without a scope the route needs. */
  refuseScope: (res: ServerResponse, needed: RouteScopes) => void = (res) => json(res, 403, { error: 'insufficient_scope', error_description: 'The access token does not carry the scope this request needs.' });
  /**
   * When set, awaited before the handler of an irreversible (`publish`) route runs: a test holds
   * calls there, sent but with nothing made yet. Answering false drops the request unanswered and
   * unmade, as a platform does a request whose caller went away before it was taken.
   */
  beforePublish?: (res: ServerResponse) => Promise<boolean>;
  private mode: FakePlatformMode = { kind: 'ok' };
  private readonly routes: Route[] = [];
  private readonly codes = new Map<string, { challenge?: string; redirectUri: string; scopes: string[]; authorize: URLSearchParams }>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly server: Server;
  private seq = 0;

  constructor(readonly options: FakePlatformOptions) {
    this.server = createServer((req, res) => void this.dispatch(req, res));
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }

  setMode(mode: FakePlatformMode): void {
    this.mode = mode;
  }

  /** Clears posts, requests and the failure mode (tokens stay valid). */
  reset(): void {
    this.posts.length = 0;
    this.replies.length = 0;
    this.requests.length = 0;
    this.mediaFetches.length = 0;
    this.revoked.length = 0;
    this.refuseRefresh = false;
    this.mode = { kind: 'ok' };
    this.metricCalls = 0;
    this.followers = 0;
    this.metrics.clear();
  }

  /** Numbers the metric endpoints serve for a post, under the platform's metric names. */
  setMetrics(remoteId: string, metrics: Record<string, number>): void {
    this.metrics.set(remoteId, metrics);
  }

  setFollowers(count: number | null): void {
    this.followers = count;
  }

  /**
   * For a route that serves metrics only for some requests (an account look-up asked for its
   * followers): counts the call and applies a `metrics` failure mode; true when answered here.
   */
  metricCall(res: ServerResponse): boolean {
    this.metricCalls += 1;
    return this.intercept('metrics', res);
  }

  /** Makes every access token issued so far expired (refresh tokens stay valid). */
  expireTokens(): void {
    for (const t of this.tokens.values()) t.expiresAt = Date.now() - 1000;
  }

  newId(prefix = ''): string {
    this.seq += 1;
    return `${prefix}${Date.now().toString(36)}${this.seq.toString(36).padStart(4, '0')}`;
  }

  route(method: string, path: string, handler: FakeHandler, opts: { tag?: RouteTag; tagOf?: (req: FakeRequest) => RouteTag; auth?: boolean; scopes?: RouteScopes } = {}): void {
    this.routes.push({ method, ...compile(path), tag: opts.tag ?? 'read', tagOf: opts.tagOf, auth: opts.auth ?? true, scopes: opts.scopes, handler });
  }

  /** The replies sent to one comment or person. */
  repliesTo(target: string): RecordedReply[] {
    return this.replies.filter((r) => r.target === target);
  }

  /** The scopes of the request's bearer token (none without a valid one). */
  scopesOf(req: RecordedRequest): string[] {
    return this.liveToken(req.headers.authorization)?.scopes ?? [];
  }

  requestsTo(path: string, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path && (!method || r.method === method));
  }

  /**
   * Fetches media by the URLs a post was given, as platforms that publish from a URL (Instagram,
   * TikTok's pull, Pinterest) do, in the background; each answer lands in `mediaFetches`.
   */
  fetchMedia(urls: string[]): void {
    for (const url of urls) {
      void (async () => {
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
          const bytes = Buffer.from(await res.arrayBuffer());
          this.mediaFetches.push({ url, status: res.status, contentType: res.headers.get('content-type'), nosniff: res.headers.get('x-content-type-options') === 'nosniff', cacheControl: res.headers.get('cache-control'), bytes });
        } catch (err) {
          this.mediaFetches.push({ url, status: 0, contentType: null, nosniff: false, cacheControl: null, bytes: Buffer.alloc(0), error: String(err) });
        }
      })();
    }
  }

  /** Records a reply; call it from a reply route, then answer with `respond` (so `lose_reply` applies). */
  recordReply(reply: Omit<RecordedReply, 'id' | 'createdAt'> & { id?: string }): RecordedReply {
    const made: RecordedReply = { ...reply, id: reply.id ?? this.newId('reply_'), createdAt: new Date() };
    this.replies.push(made);
    return made;
  }

  /** Records a post; call it from the irreversible route. */
  recordPost(post: Omit<RecordedPost, 'id' | 'createdAt'> & { id?: string }): RecordedPost {
    const made: RecordedPost = { ...post, id: post.id ?? this.newId(), createdAt: new Date() };
    this.posts.push(made);
    return made;
  }

  // ---- OAuth 2 authorization server -------------------------------------------------------

  /**
   * The consent screen, already agreed: redirects to `redirect_uri` with a code and the state.
   * Mount it at the platform's authorize path with `mountAuthorize`.
   */
  mountAuthorize(path: string, clientIdParam = 'client_id'): void {
    this.route('GET', path, (req, res) => {
      const q = req.query;
      const redirectUri = q.get('redirect_uri');
      if (q.get(clientIdParam) !== this.options.clientId || !redirectUri) return json(res, 400, { error: 'invalid_request' });
      const code = this.issueCode(redirectUri, q.get('code_challenge') ?? undefined, (q.get('scope') ?? '').split(/[ ,]+/).filter(Boolean), q);
      const target = new URL(redirectUri);
      target.searchParams.set('code', code);
      target.searchParams.set('state', q.get('state') ?? '');
      res.writeHead(302, { Location: target.toString() });
      res.end();
    }, { auth: false, tag: 'oauth' });
  }

  /** A consent's code; `authorize` is the consent request's query (what `refreshTokenWanted` reads). */
  issueCode(redirectUri: string, challenge?: string, scopes: string[] = [], authorize = new URLSearchParams()): string {
    const code = `code_${randomBytes(12).toString('hex')}`;
    this.codes.set(code, { challenge, redirectUri, scopes, authorize });
    return code;
  }

  /**
   * Checks an authorization-code grant (single use, same redirect URI, PKCE verifier when a
   * challenge was sent) and issues tokens; answers null with the OAuth error when refused.
   */
  redeemCode(code: string | null, redirectUri: string | null, verifier: string | null): IssuedToken | { error: string } {
    const grant = code ? this.codes.get(code) : undefined;
    if (!code || !grant) return { error: 'invalid_grant' };
    this.codes.delete(code);
    if (grant.redirectUri !== redirectUri) return { error: 'invalid_grant' };
    if (grant.challenge) {
      const expected = verifier ? createHash('sha256').update(verifier).digest('base64url') : '';
      if (expected !== grant.challenge) return { error: 'invalid_grant' };
    }
    const wanted = this.options.refreshTokenWanted?.(grant.scopes, grant.authorize) ?? true;
    return this.issueTokens(this.options.accountId ?? 'acct_1', grant.scopes, wanted);
  }

  redeemRefresh(refreshToken: string | null): IssuedToken | { error: string } {
    const previous = refreshToken ? this.refreshTokens.get(refreshToken) : undefined;
    if (!previous || this.refuseRefresh) return { error: 'invalid_grant' };
    this.refreshTokens.delete(refreshToken!);
    this.tokens.delete(previous.accessToken);
    return this.issueTokens(previous.accountId, previous.scopes);
  }

  /** Tokens as the platform grants them; `withRefresh` false for a grant that asked for no refresh token. */
  issueTokens(accountId: string, scopes: string[], withRefresh = true): IssuedToken {
    const token: IssuedToken = {
      accessToken: `at_${randomBytes(16).toString('hex')}`,
      refreshToken: this.options.refreshTokens === false || !withRefresh ? null : `rt_${randomBytes(16).toString('hex')}`,
      accountId,
      scopes,
      expiresAt: Date.now() + (this.options.accessTtlSeconds ?? 3600) * 1000,
    };
    this.tokens.set(token.accessToken, token);
    if (token.refreshToken) this.refreshTokens.set(token.refreshToken, token);
    return token;
  }

  /** Basic auth or body credentials, as OAuth token endpoints take them. */
  clientAuthenticated(req: FakeRequest, form: URLSearchParams, idParam = 'client_id', secretParam = 'client_secret'): boolean {
    const basic = req.headers.authorization?.match(/^Basic (.+)$/);
    if (basic) {
      const [id, secret] = Buffer.from(basic[1], 'base64').toString().split(':');
      return id === this.options.clientId && secret === this.options.clientSecret;
    }
    const id = form.get(idParam) ?? req.query.get(idParam);
    const secret = form.get(secretParam) ?? req.query.get(secretParam);
    return id === this.options.clientId && secret === this.options.clientSecret;
  }

  // ---- dispatch ---------------------------------------------------------------------------

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
    this.requests.push(recorded);
    for (const route of this.routes) {
      if (route.method !== recorded.method) continue;
      const match = route.pattern.exec(url.pathname);
      if (!match) continue;
      const params = Object.fromEntries(route.keys.map((k, i) => [k, decodeURIComponent(match[i + 1])]));
      const fake: FakeRequest = {
        ...recorded,
        params,
        json: () => parseJson(recorded),
        form: () => parseForm(recorded),
      };
      const tag = tagOf(route, fake);
      if (tag === 'metrics') this.metricCalls += 1;
      if (this.intercept(tag, res)) return;
      if (route.auth) {
        // The header only: these platforms take no access token in the query string.
        const token = this.liveToken(req.headers.authorization);
        if (!token) return json(res, 401, { error: 'invalid_token', message: 'The access token is invalid or expired.' });
        if (!scopesGrant(token.scopes, route.scopes)) return this.refuseScope(res, route.scopes!);
        fake.account = token.accountId;
      }
      if (tag === 'publish' && this.beforePublish && !(await this.beforePublish(res))) return;
      try {
        await route.handler(fake, res);
      } catch (err) {
        if (err instanceof FakeBadRequest) return this.refuseBody(res, err.message);
        json(res, 500, { error: 'fake_crashed', message: String(err) });
      }
      return;
    }
    json(res, 404, { error: 'not_found', path: url.pathname });
  }

  private liveToken(authorization: string | undefined): IssuedToken | undefined {
    const token = this.tokens.get(authorization?.match(/^Bearer (.+)$/)?.[1] ?? '');
    return token && token.expiresAt > Date.now() ? token : undefined;
  }

  /** Applies the failure mode before the handler runs; true when the request was answered here. */
  private intercept(tag: RouteTag, res: ServerResponse): boolean {
    const mode = this.mode;
    if (mode.kind === 'ok' || mode.kind === 'lose_reply' || (mode.on ?? 'publish') !== tag) return false;
    if (mode.kind === 'hang') {
      this.hanging.add(res);
      return true;
    }
    if (mode.times <= 0) return false;
    mode.times -= 1;
    if (mode.kind === 'rate_limit') {
      json(res, 429, { error: 'rate_limited', message: 'Too many requests.' }, { 'Retry-After': String(mode.retryAfterSeconds ?? 1) });
    } else {
      json(res, mode.status, mode.body ?? { error: 'failed', message: `Fake failure ${mode.status}.` });
    }
    return true;
  }

  /**
   * How a publish route answers: normally `status`/`body`; under `lose_reply` the post is kept but
   * the caller gets a 500, so it cannot know the outcome.
   */
  respond(res: ServerResponse, status: number, body: unknown): void {
    const mode = this.mode;
    if (mode.kind === 'lose_reply' && mode.times > 0) {
      mode.times -= 1;
      return json(res, 500, { error: 'internal', message: 'Something went wrong after the post was made.' });
    }
    json(res, status, body);
  }
}
