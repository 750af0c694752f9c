import type { ServerResponse } from 'node:http';
import { FakePlatform, json, type FakePlatformOptions, type FakeRequest, type IssuedToken } from './fake-platform.js';

/**
 * A fake X API v2 on one server: OAuth 2.0 with mandatory PKCE and a confidential client (Basic
 * auth at the token and revoke endpoints), `GET /2/users/me`, the one-shot image upload
 * `POST /2/media/upload` (multipart, parsed for real), `POST /2/tweets` (the irreversible call)
 * and the user timeline used for reconciliation. Errors come in X's problem shape.
 */

/** Suffixes of `fake.url` for the service's X_* settings. */
export const X_PATHS = { apiUrl: '', authorizeUrl: '/i/oauth2/authorize', tokenUrl: '/2/oauth2/token', uploadUrl: '' } as const;

export interface XUpload {
  id: string;
  mediaKey: string;
  accountId: string;
  bytes: Buffer;
  contentType: string;
  filename: string;
  category: string;
}

/** A post by someone else that mentions the account (`addMention`), as the mentions endpoint serves it. */
export interface XMention {
  id: string;
  text: string;
  authorId: string;
  authorUsername: string;
  authorName: string;
  /** The account mentioned. */
  mentionedId: string;
  /** The post it answers, if any (one of the account's posts, usually). */
  inReplyToTweetId: string | null;
  /** The root post of the thread: the post answered's, or its own id. */
  conversationId: string;
  createdAt: Date;
}

/** X's limit on a direct message's text. */
const DM_MAX = 10_000;

/** The X fake: a FakePlatform that also keeps the uploaded media and the account's mentions. */
export class XFake extends FakePlatform {
  readonly uploads = new Map<string, XUpload>();
  /** Posts mentioning the account, oldest first (`addMention`). */
  readonly mentions: XMention[] = [];
  private tweetSeq = 1_790_000_000_000_000_000n;

  override reset(): void {
    super.reset();
    this.mentions.length = 0;
  }

  /**
   * Someone mentions the account (replying to `inReplyToTweetId` when given, e.g. one of its
   * posts); `createdAt` backdates it. The account may now reply to it.
   */
  addMention(m: { text: string; authorId: string; authorUsername: string; authorName?: string; inReplyToTweetId?: string; mentionedId?: string; createdAt?: Date }): XMention {
    const id = this.nextTweetId();
    const parent = m.inReplyToTweetId ? this.mentions.find((x) => x.id === m.inReplyToTweetId) : undefined;
    const mention: XMention = {
      id,
      text: m.text,
      authorId: m.authorId,
      authorUsername: m.authorUsername,
      authorName: m.authorName ?? m.authorUsername,
      mentionedId: m.mentionedId ?? this.options.accountId!,
      inReplyToTweetId: m.inReplyToTweetId ?? null,
      conversationId: parent?.conversationId ?? m.inReplyToTweetId ?? id,
      createdAt: m.createdAt ?? new Date(),
    };
    this.mentions.push(mention);
    return mention;
  }

  /** Whether a post id is one X shows (a post the account made, or a mention of it). */
  knows(tweetId: string): boolean {
    return this.posts.some((p) => p.id === tweetId) || this.mentions.some((m) => m.id === tweetId) || this.replies.some((r) => r.channel === 'comment' && r.id === tweetId);
  }

  nextTweetId(): string {
    this.tweetSeq += 1n;
    return this.tweetSeq.toString();
  }

  mediaUrl(mediaId: string): string {
    return `${this.url}/media/${mediaId}.jpg`;
  }
}

export async function startXFake(options: Partial<FakePlatformOptions> = {}): Promise<XFake> {
  const fake = new XFake({
    clientId: 'x-client',
    clientSecret: 'x-secret',
    accountId: '1460000000000000001',
    accountName: 'luna_grows',
    accessTtlSeconds: 7200,
    // X issues a refresh token only to a consent that included `offline.access`.
    refreshTokenWanted: (scopes) => scopes.includes('offline.access'),
    ...options,
  });
  fake.refuseBody = (res, message) => problem(res, 400, 'Invalid Request', message);
  fake.refuseScope = (res) => problem(res, 403, 'Forbidden', 'The access token lacks a scope this endpoint requires.');
  mountOAuth(fake);
  // The scopes each endpoint's reference page lists for OAuth 2.0 user tokens.
  const read = { all: ['tweet.read', 'users.read'] };
  fake.route('GET', '/2/users/me', (req, res) => json(res, 200, { data: { id: req.account, name: 'Luna Grows', username: fake.options.accountName ?? 'luna_grows' } }), { scopes: read });
  fake.route('POST', '/2/media/upload', (req, res) => upload(fake, req, res), { tag: 'prepare', scopes: { all: ['media.write'] } });
  // A reply is a post too (same endpoint, `reply.in_reply_to_tweet_id`): tagged `reply` for the failure switches.
  const isReply = (req: FakeRequest) => (req.json<{ reply?: unknown }>().reply ? 'reply' : 'publish');
  fake.route('POST', '/2/tweets', (req, res) => tweet(fake, req, res), { tag: 'publish', tagOf: isReply, scopes: { all: ['tweet.read', 'tweet.write', 'users.read'] } });
  fake.route('POST', '/2/dm_conversations/with/:participantId/messages', (req, res) => directMessage(fake, req, res), { tag: 'reply', scopes: { all: ['dm.read', 'dm.write', 'tweet.read', 'users.read'] } });
  fake.route('GET', '/2/users/:id/mentions', (req, res) => mentions(fake, req, res), { tag: 'comments', scopes: read });
  fake.route('GET', '/2/users/:id/tweets', (req, res) => timeline(fake, req, res), { scopes: read });
  fake.route('GET', '/2/users/:id', (req, res) => userMetrics(fake, req, res), { tag: 'metrics', scopes: read });
  fake.route('GET', '/2/tweets', (req, res) => tweetMetrics(fake, req, res), { tag: 'metrics', scopes: read });
  return fake.listen();
}

function problem(res: ServerResponse, status: number, title: string, detail: string): void {
  json(res, status, { title, detail, type: status === 400 ? 'https://api.x.com/2/problems/invalid-request' : 'about:blank', status });
}

function tokenAnswer(token: IssuedToken): Record<string, unknown> {
  return { token_type: 'bearer', expires_in: Math.round((token.expiresAt - Date.now()) / 1000), access_token: token.accessToken, scope: token.scopes.join(' '), refresh_token: token.refreshToken };
}

function mountOAuth(fake: XFake): void {
  fake.route('GET', X_PATHS.authorizeUrl, (req, res) => {
    const q = req.query;
    const redirectUri = q.get('redirect_uri');
    // X refuses an authorization request without PKCE (S256 or plain; we only accept S256).
    if (q.get('client_id') !== fake.options.clientId || !redirectUri || q.get('response_type') !== 'code' || !q.get('code_challenge') || q.get('code_challenge_method') !== 'S256') {
      return json(res, 400, { error: 'invalid_request', error_description: 'Missing or invalid authorization parameters.' });
    }
    const code = fake.issueCode(redirectUri, q.get('code_challenge')!, (q.get('scope') ?? '').split(' ').filter(Boolean), q);
    const target = new URL(redirectUri);
    target.searchParams.set('state', q.get('state') ?? '');
    target.searchParams.set('code', code);
    res.writeHead(302, { Location: target.toString() });
    res.end();
  }, { auth: false, tag: 'oauth' });
  fake.route('POST', X_PATHS.tokenUrl, (req, res) => token(fake, req, res), { auth: false, tag: 'oauth' });
  fake.route('POST', '/2/oauth2/revoke', (req, res) => {
    const form = req.form();
    if (!fake.clientAuthenticated(req, form)) return json(res, 401, { error: 'unauthorized_client', error_description: 'Missing valid authorization header' });
    const value = form.get('token') ?? '';
    fake.revoked.push(value);
    fake.tokens.delete(value);
    fake.refreshTokens.delete(value);
    json(res, 200, { revoked: true });
  }, { auth: false, tag: 'oauth' });
}

function token(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const form = req.form();
  // A confidential client must authenticate with Basic auth.
  if (!req.headers.authorization?.startsWith('Basic ') || !fake.clientAuthenticated(req, form)) {
    return json(res, 401, { error: 'unauthorized_client', error_description: 'Missing valid authorization header' });
  }
  const grantType = form.get('grant_type');
  let issued: IssuedToken | { error: string };
  if (grantType === 'authorization_code') {
    if (!form.get('code_verifier')) return json(res, 400, { error: 'invalid_request', error_description: 'Missing required parameter [code_verifier].' });
    issued = fake.redeemCode(form.get('code'), form.get('redirect_uri'), form.get('code_verifier'));
  } else if (grantType === 'refresh_token') {
    issued = fake.redeemRefresh(form.get('refresh_token'));
  } else {
    return json(res, 400, { error: 'invalid_request', error_description: 'Value passed for the grant type was invalid.' });
  }
  if ('error' in issued) return json(res, 400, { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' });
  json(res, 200, tokenAnswer(issued));
}

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** Parses a multipart/form-data body (RFC 7578) the way a server would. */
export function parseMultipart(body: Buffer, contentType: string | undefined): MultipartPart[] | null {
  const boundary = /^multipart\/form-data;\s*boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const after = start + delimiter.length;
    if (body.subarray(after, after + 2).toString() === '--') return parts;
    const headerEnd = body.indexOf('\r\n\r\n', after);
    const next = body.indexOf(delimiter, headerEnd);
    if (headerEnd < 0 || next < 0) return null;
    const headers = body.subarray(after + 2, headerEnd).toString();
    const disposition = /content-disposition:\s*form-data;\s*name="([^"]*)"(?:;\s*filename="([^"]*)")?/i.exec(headers);
    if (!disposition) return null;
    const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim();
    parts.push({ name: disposition[1], filename: disposition[2], contentType: type, data: body.subarray(headerEnd + 4, next - 2) });
    start = next;
  }
  return null;
}

function upload(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const parts = parseMultipart(req.body, req.headers['content-type']);
  if (!parts) return problem(res, 400, 'Invalid Request', 'The request body is not valid multipart/form-data.');
  const media = parts.find((p) => p.name === 'media');
  const category = parts.find((p) => p.name === 'media_category')?.data.toString();
  if (!media || media.data.length === 0) return problem(res, 400, 'Invalid Request', 'The `media` field is missing.');
  if (!category) return problem(res, 400, 'Invalid Request', 'The `media_category` field is missing.');
  if (!/^image\/(jpeg|png|webp|gif)$/.test(media.contentType ?? '')) return problem(res, 400, 'Invalid Request', 'Unsupported media type.');
  const id = fake.nextTweetId();
  const stored: XUpload = { id, mediaKey: `3_${id}`, accountId: req.account!, bytes: Buffer.from(media.data), contentType: media.contentType!, filename: media.filename ?? '', category };
  fake.uploads.set(id, stored);
  json(res, 200, { data: { id, media_key: stored.mediaKey, size: stored.bytes.length, expires_after_secs: 86400, image: { image_type: stored.contentType, w: 1080, h: 1350 } } });
}

/** How X shows a tweet's text: HTML-escaped, with a t.co link to the attached photos appended. */
function servedText(text: string, id: string, hasMedia: boolean): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return hasMedia ? `${escaped} https://t.co/${id.slice(-10)}`.trim() : escaped;
}

function tweet(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const body = req.json<{ text?: string; media?: { media_ids?: string[] }; reply?: { in_reply_to_tweet_id?: string } }>();
  if (body.reply) return replyPost(fake, req, res, body.text ?? '', body.reply.in_reply_to_tweet_id);
  const text = body.text ?? '';
  const ids = body.media?.media_ids ?? [];
  if (!text && ids.length === 0) return problem(res, 400, 'Invalid Request', 'One of text or media is required.');
  if (Array.from(text).length > 280) return problem(res, 400, 'Invalid Request', 'The text of your post is too long.');
  if (ids.length > 4) return problem(res, 400, 'Invalid Request', 'At most 4 media can be attached.');
  const unknown = ids.find((id) => fake.uploads.get(id)?.accountId !== req.account);
  if (unknown) return problem(res, 400, 'Invalid Request', `Your media IDs are invalid: ${unknown}.`);
  if (fake.posts.some((p) => p.accountId === req.account && p.text === text)) {
    return problem(res, 403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
  }
  const id = fake.nextTweetId();
  fake.recordPost({ id, accountId: req.account!, text, mediaUrls: ids.map((m) => fake.mediaUrl(m)), extra: { mediaIds: ids } });
  fake.respond(res, 201, { data: { id, text: servedText(text, id, ids.length > 0), edit_history_tweet_ids: [id] } });
}

/** A reply to a post X shows: recorded as a reply, not as one of the account's posts. */
function replyPost(fake: XFake, req: FakeRequest, res: ServerResponse, text: string, inReplyTo: string | undefined): void {
  if (!inReplyTo) return problem(res, 400, 'Invalid Request', 'The `reply.in_reply_to_tweet_id` field is missing.');
  if (!text) return problem(res, 400, 'Invalid Request', 'One of text or media is required.');
  if (Array.from(text).length > 280) return problem(res, 400, 'Invalid Request', 'The text of your post is too long.');
  if (!fake.knows(inReplyTo)) return problem(res, 403, 'Forbidden', 'You attempted to reply to a Tweet that is deleted or not visible to you.');
  if (fake.replies.some((r) => r.accountId === req.account && r.target === inReplyTo && r.text === text)) {
    return problem(res, 403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
  }
  const reply = fake.recordReply({ id: fake.nextTweetId(), channel: 'comment', target: inReplyTo, text, accountId: req.account! });
  fake.respond(res, 201, { data: { id: reply.id, text: servedText(text, reply.id, false), edit_history_tweet_ids: [reply.id] } });
}

/** `POST /2/dm_conversations/with/{participant_id}/messages`: the one-to-one conversation's id is both ids, smaller first. */
function directMessage(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const participant = req.params.participantId;
  const text = req.json<{ text?: string }>().text ?? '';
  if (!/^\d+$/.test(participant)) return problem(res, 400, 'Invalid Request', `The \`participant_id\` path parameter value [${participant}] is not valid.`);
  if (participant === req.account) return problem(res, 403, 'Forbidden', 'You cannot send a Direct Message to yourself.');
  if (!text) return problem(res, 400, 'Invalid Request', 'One of text or attachments is required.');
  if (Array.from(text).length > DM_MAX) return problem(res, 400, 'Invalid Request', `The text of a Direct Message must be at most ${DM_MAX} characters.`);
  const [a, b] = [participant, req.account!].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1));
  const reply = fake.recordReply({ id: fake.nextTweetId(), channel: 'dm', target: participant, text, accountId: req.account! });
  fake.respond(res, 201, { data: { dm_conversation_id: `${a}-${b}`, dm_event_id: reply.id } });
}

/**
 * `GET /2/users/{id}/mentions`: newest first, 5 to 100 a page, from `start_time` (or after
 * `since_id`), `author_id`, `created_at`, `conversation_id` and `in_reply_to_user_id` when
 * `tweet.fields` asks, the authors under `includes.users` with `expansions=author_id`.
 */
function mentions(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const q = req.query;
  const max = Number(q.get('max_results') ?? 10);
  if (!Number.isInteger(max) || max < 5 || max > 100) return problem(res, 400, 'Invalid Request', 'The `max_results` query parameter value is not between 5 and 100.');
  const startTime = q.get('start_time');
  if (startTime && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(startTime)) return problem(res, 400, 'Invalid Request', 'The `start_time` query parameter value is invalid.');
  const since = startTime ? Date.parse(startTime) : 0;
  const sinceId = q.get('since_id');
  const fields = (q.get('tweet.fields') ?? '').split(',');
  const start = Number(q.get('pagination_token') ?? '0') || 0;
  const all = fake.mentions
    .filter((m) => m.mentionedId === req.params.id && m.createdAt.getTime() >= since && (!sinceId || BigInt(m.id) > BigInt(sinceId)))
    .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const page = all.slice(start, start + max);
  if (page.length === 0) return json(res, 200, { meta: { result_count: 0 } });
  const inReplyToUser = (m: XMention) => (m.inReplyToTweetId ? fake.posts.find((p) => p.id === m.inReplyToTweetId)?.accountId ?? fake.mentions.find((x) => x.id === m.inReplyToTweetId)?.authorId : undefined);
  const data = page.map((m) => ({
    id: m.id,
    text: servedText(m.text, m.id, false),
    edit_history_tweet_ids: [m.id],
    ...(fields.includes('author_id') ? { author_id: m.authorId } : {}),
    ...(fields.includes('created_at') ? { created_at: m.createdAt.toISOString() } : {}),
    ...(fields.includes('conversation_id') ? { conversation_id: m.conversationId } : {}),
    ...(fields.includes('in_reply_to_user_id') && inReplyToUser(m) ? { in_reply_to_user_id: inReplyToUser(m) } : {}),
  }));
  const expandAuthors = (q.get('expansions') ?? '').split(',').includes('author_id');
  const users = [...new Map(page.map((m) => [m.authorId, { id: m.authorId, name: m.authorName, username: m.authorUsername }])).values()];
  const next = start + max < all.length ? { next_token: String(start + max) } : {};
  json(res, 200, { data, ...(expandAuthors ? { includes: { users } } : {}), meta: { result_count: data.length, newest_id: data[0].id, oldest_id: data[data.length - 1].id, ...next } });
}

function timeline(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const q = req.query;
  const max = Number(q.get('max_results') ?? 10);
  if (!Number.isInteger(max) || max < 5 || max > 100) return problem(res, 400, 'Invalid Request', 'The `max_results` query parameter value is not between 5 and 100.');
  const since = q.get('start_time') ? Date.parse(q.get('start_time')!) : 0;
  if (Number.isNaN(since)) return problem(res, 400, 'Invalid Request', 'The `start_time` query parameter value is invalid.');
  const fields = (q.get('tweet.fields') ?? '').split(',');
  const expandMedia = (q.get('expansions') ?? '').split(',').includes('attachments.media_keys');
  // Newest first, paged like X: `pagination_token` is where the next page starts (`meta.next_token`).
  const start = Number(q.get('pagination_token') ?? '0') || 0;
  const all = fake.posts.filter((p) => p.accountId === req.params.id && p.createdAt.getTime() >= since).reverse();
  const posts = all.slice(start, start + max);
  const next = start + max < all.length ? { next_token: String(start + max) } : {};
  if (posts.length === 0) return json(res, 200, { meta: { result_count: 0 } });
  const data = posts.map((p) => {
    const ids = (p.extra.mediaIds as string[] | undefined) ?? [];
    return {
      id: p.id,
      text: servedText(p.text, p.id, ids.length > 0),
      edit_history_tweet_ids: [p.id],
      ...(fields.includes('created_at') ? { created_at: p.createdAt.toISOString() } : {}),
      ...((fields.includes('attachments') || expandMedia) && ids.length ? { attachments: { media_keys: ids.map((m) => `3_${m}`) } } : {}),
    };
  });
  const withUrl = (q.get('media.fields') ?? '').split(',').includes('url');
  const media = posts.flatMap((p) => ((p.extra.mediaIds as string[] | undefined) ?? []).map((m) => ({ media_key: `3_${m}`, type: 'photo', ...(withUrl ? { url: fake.mediaUrl(m) } : {}) })));
  const includes = expandMedia && media.length ? { includes: { media } } : {};
  json(res, 200, { data, ...includes, meta: { result_count: data.length, newest_id: data[0].id, oldest_id: data[data.length - 1].id, ...next } });
}

/** `GET /2/users/{id}`: the account, with `public_metrics` when `user.fields` asks for it. */
function userMetrics(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  if (req.params.id !== req.account) return problem(res, 404, 'Not Found Error', `Could not find user with id: [${req.params.id}].`);
  const wanted = (req.query.get('user.fields') ?? '').split(',').includes('public_metrics');
  const metrics = fake.followers === null ? {} : { followers_count: fake.followers, following_count: 12, tweet_count: fake.posts.length, listed_count: 0 };
  json(res, 200, { data: { id: req.account, name: 'Luna Grows', username: fake.options.accountName, ...(wanted ? { public_metrics: metrics } : {}) } });
}

/** `GET /2/tweets?ids=`: at most 100 ids; unknown ones come back under `errors`, as X answers. */
function tweetMetrics(fake: XFake, req: FakeRequest, res: ServerResponse): void {
  const ids = (req.query.get('ids') ?? '').split(',').filter(Boolean);
  if (ids.length === 0 || ids.length > 100) return problem(res, 400, 'Invalid Request', 'The `ids` query parameter value must have between 1 and 100 ids.');
  const wanted = (req.query.get('tweet.fields') ?? '').split(',').includes('public_metrics');
  const found = ids.filter((id) => fake.metrics.has(id));
  const data = found.map((id) => ({ id, text: 'a post', edit_history_tweet_ids: [id], ...(wanted ? { public_metrics: fake.metrics.get(id) } : {}) }));
  const errors = ids
    .filter((id) => !fake.metrics.has(id))
    .map((id) => ({ value: id, detail: `Could not find tweet with ids: [${id}].`, title: 'Not Found Error', resource_type: 'tweet', parameter: 'ids', resource_id: id, type: 'https://api.twitter.com/2/problems/resource-not-found' }));
  json(res, 200, { ...(data.length ? { data } : {}), ...(errors.length ? { errors } : {}) });
}
