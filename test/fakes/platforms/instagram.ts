import type { ServerResponse } from 'node:http';
import { FakePlatform, json, scopesGrant, type FakePlatformOptions, type FakeRequest, type IssuedToken, type RecordedPost, type RouteScopes, type RouteTag } from './fake-platform.js';

/**
 * The Instagram Graph API (Facebook Login for Business) as the Instagram adapter speaks it: the
 * Facebook consent dialog, the token endpoint (code grant and fb_exchange_token), the Pages look-up,
 * media containers that finish processing after some status reads, media_publish (which publishes
 * a container at most once, as Graph does), the media list and permission revocation. Every error
 * is in Graph's `{error: {message, type, code, error_subcode, fbtrace_id}}` shape; an invalid or
 * expired token is HTTP 400 with code 190, as Graph answers it.
 */

export const INSTAGRAM_PATHS = {
  apiUrl: '/v21.0',
  authorizeUrl: '/v21.0/dialog/oauth',
  tokenUrl: '/v21.0/oauth/access_token',
  uploadUrl: '/v21.0',
} as const;

const V = '/v21.0';
const LONG_LIVED_SECONDS = 60 * 24 * 3600;
const CAPTION_MAX = 2200;
/** Content publishing with Facebook Login for Business (the `instagram_business_*` names are Instagram Login's). */
const PUBLISH_SCOPES: RouteScopes = { all: ['instagram_basic', 'instagram_content_publish'] };

/** Mutable switches for the Instagram-specific behaviour; `reset()` restores them. */
export interface InstagramFakeSettings {
  /** The status read on which a container stops being IN_PROGRESS (1: the first read). */
  pollsToFinish: number;
  /** What a container ends as: FINISHED, or ERROR / EXPIRED for processing failures. */
  containerOutcome: 'FINISHED' | 'ERROR' | 'EXPIRED';
  /** False: none of the login's Pages has an Instagram professional account. */
  linked: boolean;
  /** True: reading a published media (the permalink look-up) fails. */
  failMediaLookup: boolean;
}

export interface FakeContainer {
  id: string;
  owner: string;
  /** IMAGE, VIDEO (carousel items only), REELS, STORIES or CAROUSEL. */
  mediaType: string;
  urls: string[];
  caption?: string;
  children: string[];
  isCarouselItem: boolean;
  polls: number;
  published: boolean;
}

/** A comment someone left on one of the account's media, as the comments webhook describes it. */
export interface InstagramComment {
  id: string;
  text: string;
  from: { id: string; username: string };
  media: { id: string; media_product_type: string };
  /** The account whose media it is (the webhook's `entry.id`). */
  accountId: string;
  /** Unix seconds, as webhook entries carry `time`. */
  time: number;
}

/** A direct message someone sent the account, as the messaging webhook describes it. */
export interface InstagramMessage {
  mid: string;
  senderId: string;
  recipientId: string;
  text: string;
  /** Unix milliseconds, as messaging events carry `timestamp`. */
  timestamp: number;
}

/** Replying to comments and messaging, with Facebook Login for Business. */
const COMMENT_SCOPES: RouteScopes = { all: ['instagram_basic', 'instagram_manage_comments'] };
const MESSAGE_SCOPES: RouteScopes = { all: ['instagram_basic', 'instagram_manage_messages'] };
/** Instagram comments and replies: 2,200 characters; Messenger Platform text: 1,000. */
const COMMENT_MAX = 2200;
const MESSAGE_MAX = 1000;
/** The standard messaging window: a business may answer a person within 24 hours of their last message. */
const MESSAGING_WINDOW_MS = 24 * 3600_000;

const defaults = (): InstagramFakeSettings => ({ pollsToFinish: 1, containerOutcome: 'FINISHED', linked: true, failMediaLookup: false });

type GraphHandler = (req: FakeRequest, res: ServerResponse, token: IssuedToken) => void;

function graphError(res: ServerResponse, status: number, code: number, message: string, subcode?: number): void {
  json(res, status, { error: { message, type: 'OAuthException', code, error_subcode: subcode, fbtrace_id: 'AfakeTraceId01' } });
}

/** Graph takes parameters in the query string or a form body, alike. */
function paramsOf(req: FakeRequest): URLSearchParams {
  const params = new URLSearchParams(req.query);
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    for (const [k, v] of req.form()) params.set(k, v);
  }
  return params;
}

/** Top-level names of a Graph `fields` list (`a,b{c,d},e` → a, b, e). */
function topFields(fields: string | null): Set<string> {
  const names = new Set<string>();
  let depth = 0;
  let name = '';
  for (const ch of `${fields ?? ''},`) {
    if (ch === '{') depth += 1;
    if (ch === '}') depth -= 1;
    if (ch === ',' && depth === 0) {
      if (name.trim()) names.add(name.trim().split('{')[0]);
      name = '';
    } else name += ch;
  }
  return names;
}

function pick(object: Record<string, unknown>, fields: string | null): Record<string, unknown> {
  const wanted = topFields(fields);
  return Object.fromEntries(Object.entries(object).filter(([k, v]) => v !== undefined && (k === 'id' || wanted.has(k))));
}

/** Graph's timestamp format: `2024-08-01T10:00:00+0000`. */
function graphTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export class InstagramFake extends FakePlatform {
  readonly settings: InstagramFakeSettings;
  readonly containers = new Map<string, FakeContainer>();
  /** Comments people left (`receiveComment`): the ones Graph lets the account reply to. */
  readonly comments = new Map<string, InstagramComment>();
  /** Messages people sent (`receiveMessage`): each opens the 24-hour window to answer its sender. */
  readonly messages: InstagramMessage[] = [];
  private readonly baseline: InstagramFakeSettings;
  private next = 0;

  constructor(options: FakePlatformOptions, settings: Partial<InstagramFakeSettings> = {}) {
    super(options);
    this.baseline = { ...defaults(), ...settings };
    this.settings = { ...this.baseline };
  }

  /** Also forgets containers and restores the settings the fake was started with. */
  override reset(): void {
    super.reset();
    this.containers.clear();
    this.comments.clear();
    this.messages.length = 0;
    Object.assign(this.settings, this.baseline);
  }

  /** Graph-style numeric ids. */
  graphId(): string {
    this.next += 1;
    return `1789${String(Date.now()).slice(-7)}${String(this.next).padStart(6, '0')}`;
  }

  /**
   * A Graph route: the token comes as a Bearer header, an `access_token` query or form field (Graph
   * documents all three). `scopes`: the permissions the endpoint's reference lists.
   */
  graph(method: string, path: string, handler: GraphHandler, tag: RouteTag = 'read', scopes?: RouteScopes): void {
    this.route(method, path, (req, res) => {
      const value = req.headers.authorization?.match(/^(?:Bearer|OAuth) (.+)$/)?.[1] ?? paramsOf(req).get('access_token');
      if (!value) return graphError(res, 400, 104, 'An access token is required to request this resource.');
      const token = this.tokens.get(value);
      if (!token || token.expiresAt <= Date.now()) return graphError(res, 400, 190, 'Error validating access token: Session has expired.', 463);
      if (!scopesGrant(token.scopes, scopes)) return graphError(res, 403, 10, '(#10) Application does not have permission for this action');
      req.account = token.accountId;
      handler(req, res, token);
    }, { tag, auth: false });
  }

  // ---- what people send the account (the webhook helpers describe these) ---------------------

  /** Someone comments on one of the account's media; the account may now reply under it. */
  receiveComment(c: { mediaId: string; text: string; fromId?: string; username?: string; mediaProductType?: string; accountId?: string }): InstagramComment {
    const comment: InstagramComment = {
      id: this.graphId(),
      text: c.text,
      from: { id: c.fromId ?? `${this.graphId()}`, username: c.username ?? 'a.follower' },
      media: { id: c.mediaId, media_product_type: c.mediaProductType ?? 'FEED' },
      accountId: c.accountId ?? this.options.accountId!,
      time: Math.floor(Date.now() / 1000),
    };
    this.comments.set(comment.id, comment);
    return comment;
  }

  /** Someone writes to the account; it may answer them for the next 24 hours. `at` backdates it. */
  receiveMessage(m: { fromId: string; text: string; accountId?: string; at?: Date }): InstagramMessage {
    const message: InstagramMessage = {
      mid: `aWdfZAG1faXRlbToxOklHTWVzc2FnZAU${Buffer.from(this.graphId()).toString('base64url')}`,
      senderId: m.fromId,
      recipientId: m.accountId ?? this.options.accountId!,
      text: m.text,
      timestamp: (m.at ?? new Date()).getTime(),
    };
    this.messages.push(message);
    return message;
  }

  // ---- OAuth --------------------------------------------------------------------------------

  mountOAuth(): void {
    this.mountAuthorize(`${V}/dialog/oauth`);
    this.route('GET', `${V}/oauth/access_token`, (req, res) => {
      if (req.query.get('client_id') !== this.options.clientId) return graphError(res, 400, 101, 'Error validating application. Invalid application ID.');
      if (!this.clientAuthenticated(req, new URLSearchParams())) return graphError(res, 400, 1, 'Error validating client secret.');
      if (req.query.get('grant_type') === 'fb_exchange_token') return this.exchange(req.query.get('fb_exchange_token'), res);
      const issued = this.redeemCode(req.query.get('code'), req.query.get('redirect_uri'), null);
      if ('error' in issued) return graphError(res, 400, 100, 'This authorization code has been used.', 36009);
      json(res, 200, { access_token: issued.accessToken, token_type: 'bearer', expires_in: this.options.accessTtlSeconds ?? 3600 });
    }, { auth: false, tag: 'oauth' });
    this.graph('GET', `${V}/me/permissions`, (_req, res, token) => {
      json(res, 200, { data: token.scopes.map((permission) => ({ permission, status: 'granted' })) });
    });
    this.graph('DELETE', `${V}/me/permissions`, (_req, res, token) => {
      // Removing the app's permissions ends every token of that user.
      for (const [value, t] of this.tokens) if (t.accountId === token.accountId) this.tokens.delete(value);
      this.revoked.push(token.accessToken);
      json(res, 200, { success: true });
    });
  }

  /** fb_exchange_token: a valid user token (short- or long-lived) for a fresh long-lived one. */
  private exchange(value: string | null, res: ServerResponse): void {
    const previous = value ? this.tokens.get(value) : undefined;
    if (!previous || previous.expiresAt <= Date.now() || this.refuseRefresh) {
      return graphError(res, 400, 190, 'Error validating access token: Session has expired.', 463);
    }
    const long = this.issueTokens(previous.accountId, previous.scopes);
    long.expiresAt = Date.now() + LONG_LIVED_SECONDS * 1000;
    json(res, 200, { access_token: long.accessToken, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS });
  }

  mountAccounts(): void {
    this.graph('GET', `${V}/me/accounts`, (req, res) => {
      const fields = req.query.get('fields') ?? '';
      const withUsername = /instagram_business_account\{[^}]*username/.test(fields);
      const ig = { id: this.options.accountId!, ...(withUsername ? { username: this.options.accountName } : {}) };
      // A Page without Instagram first, as real logins often have several Pages.
      const pages: Record<string, unknown>[] = [{ id: '104400000000001', name: 'Old Bakery Page' }];
      if (this.settings.linked) pages.push({ id: '104400000000002', name: 'Persona Page', instagram_business_account: ig });
      json(res, 200, { data: pages.map((p) => pick(p, fields)), paging: { cursors: { before: 'QVFIUm', after: 'QVFIUn' } } });
    });
  }

  // ---- containers and publishing -----------------------------------------------------------

  mountMedia(): void {
    this.graph('POST', `${V}/:igUserId/media`, (req, res, token) => {
      if (req.params.igUserId !== token.accountId) return this.noObject(res, req.params.igUserId, 'post');
      const made = this.container(paramsOf(req), token.accountId);
      if (typeof made === 'string') return graphError(res, 400, 100, made, 2207023);
      this.containers.set(made.id, made);
      json(res, 200, { id: made.id });
    }, 'prepare', PUBLISH_SCOPES);
    this.graph('POST', `${V}/:igUserId/media_publish`, (req, res, token) => this.publish(req, res, token), 'publish', PUBLISH_SCOPES);
    this.graph('GET', `${V}/:igUserId/media`, (req, res, token) => {
      if (req.params.igUserId !== token.accountId) return this.noObject(res, req.params.igUserId, 'get');
      const limit = Number(req.query.get('limit') ?? 25);
      // Stories are not feed media: Graph lists them under /stories, not here.
      const posts = this.posts.filter((p) => p.accountId === token.accountId && p.extra.media_type !== 'STORIES').reverse().slice(0, limit);
      json(res, 200, { data: posts.map((p) => pick(this.mediaOf(p), req.query.get('fields'))), paging: { cursors: { before: 'QVFIUa', after: 'QVFIUb' } } });
    }, 'read', { all: ['instagram_basic'] });
    this.graph('GET', `${V}/:id/insights`, (req, res, token) => this.insights(req, res, token), 'metrics');
    this.graph('GET', `${V}/:id`, (req, res, token) => this.read(req, res, token));
  }

  /** Replies under comments (`POST /{comment-id}/replies`) and direct messages (`POST /{ig-user-id}/messages`). */
  mountReplies(): void {
    this.graph('POST', `${V}/:commentId/replies`, (req, res, token) => {
      const comment = this.comments.get(req.params.commentId);
      if (!comment || comment.accountId !== token.accountId) return this.noObject(res, req.params.commentId, 'post');
      const message = paramsOf(req).get('message') ?? '';
      if (!message.trim()) return graphError(res, 400, 100, '(#100) The parameter message is required.');
      if ([...message].length > COMMENT_MAX) return graphError(res, 400, 100, `(#100) The comment is longer than ${COMMENT_MAX} characters.`);
      const reply = this.recordReply({ id: this.graphId(), channel: 'comment', target: comment.id, text: message, accountId: token.accountId });
      this.respond(res, 200, { id: reply.id });
    }, 'reply', COMMENT_SCOPES);
    this.graph('POST', `${V}/:igUserId/messages`, (req, res, token) => this.message(req, res, token), 'reply', MESSAGE_SCOPES);
  }

  private message(req: FakeRequest, res: ServerResponse, token: IssuedToken): void {
    const owner = req.params.igUserId === 'me' ? token.accountId : req.params.igUserId;
    if (owner !== token.accountId) return this.noObject(res, req.params.igUserId, 'post');
    const body = req.json<{ recipient?: { id?: string }; message?: { text?: string } }>();
    const recipient = body.recipient?.id;
    const text = body.message?.text ?? '';
    if (!recipient) return graphError(res, 400, 100, '(#100) The parameter recipient is required');
    if (!text.trim()) return graphError(res, 400, 100, '(#100) Message cannot be empty, must provide valid attachment or text');
    if ([...text].length > MESSAGE_MAX) return graphError(res, 400, 100, `(#100) Length of param message[text] must be less than or equal to ${MESSAGE_MAX}`);
    const last = this.messages.filter((m) => m.senderId === recipient && m.recipientId === owner).reduce((at, m) => Math.max(at, m.timestamp), 0);
    if (Date.now() - last > MESSAGING_WINDOW_MS) {
      return graphError(res, 400, 10, '(#10) This message is sent outside of allowed window.', 2018278);
    }
    const mid = `aWdfZAG1faXRlbToxOklHTWVzc2FnZAU${Buffer.from(this.graphId()).toString('base64url')}`;
    this.recordReply({ id: mid, channel: 'dm', target: recipient, text, accountId: owner });
    this.respond(res, 200, { recipient_id: recipient, message_id: mid });
  }

  /** GET /{media-id}/insights?metric=…: each asked metric the test set, in Graph's insights shape. */
  private insights(req: FakeRequest, res: ServerResponse, token: IssuedToken): void {
    const asked = (req.query.get('metric') ?? '').split(',').filter(Boolean);
    if (asked.length === 0) return graphError(res, 400, 100, '(#100) The parameter metric is required.');
    if (asked.includes('impressions')) return graphError(res, 400, 100, '(#100) metric[0] must be one of the following values: views, reach, likes, comments, shares, saved');
    if (!token.scopes.includes('instagram_manage_insights')) return graphError(res, 403, 10, '(#10) Application does not have permission for this action');
    const metrics = this.metrics.get(req.params.id);
    if (!metrics) return this.noObject(res, req.params.id, 'get');
    const data = asked
      .filter((name) => name in metrics)
      .map((name) => ({ name, period: 'lifetime', values: [{ value: metrics[name] }], title: name, id: `${req.params.id}/insights/${name}/lifetime` }));
    json(res, 200, { data });
  }

  private container(p: URLSearchParams, owner: string): FakeContainer | string {
    const mediaType = p.get('media_type') ?? 'IMAGE';
    const caption = p.get('caption') ?? undefined;
    const isCarouselItem = p.get('is_carousel_item') === 'true';
    const base = { id: this.graphId(), owner, mediaType, caption, isCarouselItem, children: [] as string[], polls: 0, published: false };
    if (caption && [...caption].length > CAPTION_MAX) return 'The caption is too long.';
    const url = (name: string) => (/^https?:\/\//.test(p.get(name) ?? '') ? p.get(name)! : undefined);
    switch (mediaType) {
      case 'IMAGE':
        return url('image_url') ? { ...base, urls: [url('image_url')!] } : 'The parameter image_url is required.';
      case 'VIDEO':
        if (!isCarouselItem) return 'The VIDEO media type is no longer supported for feed posts. Use REELS.';
        return url('video_url') ? { ...base, urls: [url('video_url')!] } : 'The parameter video_url is required.';
      case 'REELS':
        return url('video_url') ? { ...base, urls: [url('video_url')!] } : 'The parameter video_url is required.';
      case 'STORIES': {
        const media = url('image_url') ?? url('video_url');
        return media ? { ...base, urls: [media] } : 'The parameter image_url or video_url is required.';
      }
      case 'CAROUSEL':
        return this.carousel(base, p.get('children'));
      default:
        return `The media type ${mediaType} is not one of the expected media types.`;
    }
  }

  private carousel(base: Omit<FakeContainer, 'urls'>, childList: string | null): FakeContainer | string {
    const ids = (childList ?? '').split(',').filter(Boolean);
    if (ids.length < 2 || ids.length > 10) return 'A carousel takes 2 to 10 children.';
    const children = ids.map((id) => this.containers.get(id));
    for (const child of children) {
      if (!child || child.owner !== base.owner || !child.isCarouselItem) return 'A child is not a carousel item of this user.';
      if (!this.finished(child)) return 'A child container has not finished processing.';
    }
    return { ...base, children: ids, urls: children.flatMap((c) => c!.urls) };
  }

  private finished(c: FakeContainer): boolean {
    return c.polls >= this.settings.pollsToFinish && this.settings.containerOutcome === 'FINISHED';
  }

  private statusOf(c: FakeContainer): string {
    if (c.published) return 'PUBLISHED';
    return c.polls >= this.settings.pollsToFinish ? this.settings.containerOutcome : 'IN_PROGRESS';
  }

  private publish(req: FakeRequest, res: ServerResponse, token: IssuedToken): void {
    const ig = req.params.igUserId;
    const c = this.containers.get(paramsOf(req).get('creation_id') ?? '');
    if (ig !== token.accountId) return this.noObject(res, ig, 'post');
    if (!c || c.owner !== ig || c.isCarouselItem) return graphError(res, 400, 100, 'Invalid parameter: creation_id is not a container of this user.', 2207008);
    if (c.published) return graphError(res, 400, 100, 'The media container has already been published.');
    if (!this.finished(c)) return graphError(res, 400, 9007, 'Media ID is not available: the media is not ready for publishing.', 2207027);
    c.published = true;
    const post = this.recordPost({
      id: this.graphId(),
      accountId: ig,
      text: c.caption ?? '',
      mediaUrls: c.urls,
      extra: { media_type: c.mediaType, container: c.id, children: c.children },
    });
    this.fetchMedia(c.urls);
    this.respond(res, 200, { id: post.id });
  }

  /** GET /{id}: a container's status, or a published media's fields. */
  private read(req: FakeRequest, res: ServerResponse, token: IssuedToken): void {
    const fields = req.query.get('fields');
    if (req.params.id === token.accountId && topFields(fields).has('followers_count')) {
      if (this.metricCall(res)) return;
      return json(res, 200, { id: token.accountId, ...(this.followers === null ? {} : { followers_count: this.followers }) });
    }
    const c = this.containers.get(req.params.id);
    if (c && c.owner === token.accountId) {
      if (topFields(fields).has('status_code')) c.polls += 1;
      const status = this.statusOf(c);
      const detail = status === 'ERROR' ? 'Error: the media could not be processed (2207026).' : status;
      return json(res, 200, pick({ id: c.id, status_code: status, status: detail }, fields));
    }
    const post = this.posts.find((p) => p.id === req.params.id && p.accountId === token.accountId);
    if (!post || this.settings.failMediaLookup) return this.noObject(res, req.params.id, 'get');
    json(res, 200, pick(this.mediaOf(post), fields));
  }

  /** A post as Graph shows it: CDN URLs of its own, a shortcode permalink. */
  mediaOf(post: RecordedPost): Record<string, unknown> {
    const type = String(post.extra.media_type);
    const cdn = post.mediaUrls.map((u, i) => `https://scontent.cdninstagram.com/v/t51/${post.id}_${i}.${/\.(mp4|mov)$/i.test(u) ? 'mp4' : 'jpg'}`);
    const kind = type === 'REELS' ? 'reel' : type === 'STORIES' ? 'stories' : 'p';
    return {
      id: post.id,
      caption: type === 'STORIES' ? undefined : post.text,
      media_type: type === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : type === 'REELS' ? 'VIDEO' : type,
      permalink: `https://www.instagram.com/${kind}/C${Buffer.from(post.id).toString('base64url').slice(0, 10)}/`,
      timestamp: graphTime(post.createdAt),
      media_url: cdn[0],
      children: type === 'CAROUSEL' ? { data: cdn.map((media_url, i) => ({ id: `${post.id}${i}`, media_url })) } : undefined,
    };
  }

  private noObject(res: ServerResponse, id: string, verb: string): void {
    graphError(
      res,
      400,
      100,
      `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      33,
    );
  }
}

export interface InstagramFakeOptions extends Partial<FakePlatformOptions> {
  settings?: Partial<InstagramFakeSettings>;
}

export async function startInstagramFake(options: InstagramFakeOptions = {}): Promise<InstagramFake> {
  const { settings, ...platform } = options;
  const fake = new InstagramFake(
    {
      clientId: 'instagram-client',
      clientSecret: 'instagram-secret',
      accountId: '17841400008460056',
      accountName: 'luna.grows',
      // Facebook issues no refresh tokens: long-lived tokens are exchanged again instead.
      refreshTokens: false,
      ...platform,
    },
    settings,
  );
  fake.mountOAuth();
  fake.mountAccounts();
  // Before the media routes: `/{id}/replies` and `/{id}/messages` are not media reads.
  fake.mountReplies();
  fake.mountMedia();
  return fake.listen();
}
