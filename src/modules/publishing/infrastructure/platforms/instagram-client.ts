import { isOutboundError } from '../../../../platform/outbound/index.js';
import {
  assertMediaAccepted,
  PublishFailure,
  type AuthorizeParams,
  type ConnectedAccount,
  type FailurePoint,
  type MetricsQuery,
  type MetricsReading,
  type PlatformAccount,
  type PlatformClient,
  type PlatformClientOptions,
  type PlatformTokens,
  type PublishMedia,
  type PublishRequest,
  type PublishResult,
  type ReconcileQuery,
  type ReplyRequest,
  type ReplyResult,
} from '../../application/ports/platform-client.js';
import { readInstagramMetrics } from './instagram-metrics.js';
import { assertReplyAccepted } from './reply-rules.js';
import { consentUrl, grantCall, pause, PlatformHttp, RECONCILE_SKEW_MS, sentReply, tokensFrom, withQuery } from './platform-http.js';

const LABEL = 'Instagram';
/** Instagram's caption limits, checked up front so a caption it would refuse costs no call. */
const CAPTION_MAX_CHARS = 2200;
const CAPTION_MAX_HASHTAGS = 30;
const CAROUSEL_MIN = 2;
const CAROUSEL_MAX = 10;
const RECONCILE_PAGE = 50;
const MEDIA_FIELDS = 'permalink,media_url,children{media_url}';

/** Graph error codes (developers.facebook.com/docs/graph-api/guides/error-handling). */
const TOKEN_CODES = new Set([102, 190]);
/** 4/17/32/613: app, user, page and custom throttles; 9: the 24 h content publishing limit. */
const RATE_CODES = new Set([4, 9, 17, 32, 613]);
/** -1/-2 (Instagram server error, media download timeout) and 2 (service unavailable) pass on their own. */
const TRANSIENT_CODES = new Set([-2, -1, 2]);

type Form = Record<string, string | undefined>;

interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  is_transient?: boolean;
}

interface TokenAnswer {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
}

interface PagesAnswer {
  data?: { id: string; name?: string; instagram_business_account?: { id: string; username?: string } }[];
}

interface ContainerStatus {
  status_code?: 'EXPIRED' | 'ERROR' | 'FINISHED' | 'IN_PROGRESS' | 'PUBLISHED';
  status?: string;
}

interface GraphMedia {
  id: string;
  caption?: string;
  permalink?: string;
  timestamp?: string;
  media_url?: string;
  children?: { data?: { media_url?: string }[] };
}

/** The containers one post needs: children (carousel items) first, then the one that is published. */
interface ContainerPlan {
  children: Form[];
  parent: Form;
}

/** The `{error: {...}}` body Graph answers with, read from the start of an error response. */
export function graphErrorOf(body: string | undefined): GraphError | null {
  if (!body) return null;
  try {
    const parsed = JSON.parse(body) as { error?: GraphError };
    return parsed.error && typeof parsed.error.code === 'number' ? parsed.error : null;
  } catch {
    return null;
  }
}

/**
 * PlatformHttp that reads Graph's error codes first: Graph answers an expired token and most
 * throttling with HTTP 400, which the status alone would call a content rejection.
 */
export class GraphHttp extends PlatformHttp {
  override failure(err: unknown, what: string, point: FailurePoint): Error {
    const graph = isOutboundError(err) && err.kind === 'http' ? graphErrorOf(err.bodySnippet) : null;
    if (!graph || graph.code === undefined) return super.failure(err, what, point);
    const code = graph.code;
    const detail = `${graph.message ?? 'no message'} (code ${code}${graph.error_subcode ? `/${graph.error_subcode}` : ''})`;
    const message = `${this.label} refused ${what}: ${detail}`;
    if (TOKEN_CODES.has(code)) return new PublishFailure('token_expired', message);
    if (RATE_CODES.has(code) || (code >= 80000 && code <= 80014)) {
      return new PublishFailure('rate_limited', message, 'before', isOutboundError(err) ? err.retryAfterMs : undefined);
    }
    // A transient error on the publish call may come after the post was made: its point stays `unknown`.
    if (TRANSIENT_CODES.has(code) || graph.is_transient === true) return new PublishFailure('network_error', message, point);
    return super.failure(err, what, point);
  }
}

function rejected(message: string): PublishFailure {
  return new PublishFailure('content_rejected', `${LABEL} cannot take this post: ${message}`);
}

function mediaForm(media: PublishMedia): Form {
  return media.kind === 'video' ? { video_url: media.url } : { image_url: media.url };
}

function checkCaption(text: string): string {
  if ([...text].length > CAPTION_MAX_CHARS) throw rejected(`the caption is longer than ${CAPTION_MAX_CHARS} characters.`);
  if ((text.match(/#[^\s#]+/gu) ?? []).length > CAPTION_MAX_HASHTAGS) throw rejected(`the caption has more than ${CAPTION_MAX_HASHTAGS} hashtags.`);
  return text;
}

function single(media: PublishMedia[], kind: PublishMedia['kind'], what: string): PublishMedia {
  if (media.length !== 1 || media[0].kind !== kind) throw rejected(`${what} takes exactly one ${kind}.`);
  return media[0];
}

/**
 * The containers for a content type, or content_rejected before any call for what Instagram
 * cannot publish. Videos go as REELS: Graph no longer takes VIDEO feed posts.
 */
export function containerPlan(request: Pick<PublishRequest, 'contentType' | 'text' | 'media'>): ContainerPlan {
  const { media, text } = request;
  switch (request.contentType) {
    case 'single':
      return { children: [], parent: { image_url: single(media, 'image', 'a single post').url, caption: checkCaption(text) } };
    case 'reel':
    case 'video':
    case 'short':
      return { children: [], parent: { media_type: 'REELS', video_url: single(media, 'video', 'a reel').url, caption: checkCaption(text) } };
    case 'story':
      // Stories take no caption.
      if (media.length !== 1) throw rejected('a story takes exactly one image or video.');
      return { children: [], parent: { media_type: 'STORIES', ...mediaForm(media[0]) } };
    case 'carousel':
      if (media.length < CAROUSEL_MIN || media.length > CAROUSEL_MAX) throw rejected(`a carousel takes ${CAROUSEL_MIN} to ${CAROUSEL_MAX} items.`);
      return {
        children: media.map((m) => ({ ...(m.kind === 'video' ? { media_type: 'VIDEO' } : {}), ...mediaForm(m), is_carousel_item: 'true' })),
        parent: { media_type: 'CAROUSEL', caption: checkCaption(text) },
      };
    default:
      throw rejected(`Instagram has no "${request.contentType}" post.`);
  }
}

function resultOf(mediaId: string, details: GraphMedia | null, fallback: string[]): PublishResult {
  const children = (details?.children?.data ?? []).map((c) => c.media_url).filter((u): u is string => typeof u === 'string');
  const served = children.length > 0 ? children : details?.media_url ? [details.media_url] : [];
  // Instagram permalinks use a shortcode, not the media id: without one there is no URL to build.
  return { remotePostId: mediaId, remoteUrl: details?.permalink ?? null, mediaUrls: served.length > 0 ? served : fallback };
}

/**
 * Instagram through the Instagram Graph API with Facebook Login for Business: the user logs in
 * with Facebook, we keep a long-lived user token and publish to the Instagram professional
 * account linked to one of their Pages, through media containers (create, wait, publish).
 */
export class InstagramClient implements PlatformClient {
  readonly platform = 'instagram' as const;
  readonly supportsPkce = false;
  // pages_read_engagement: Graph asks for it to read containers and media with Facebook Login.
  // instagram_manage_insights: followers and media insights (analytics).
  // instagram_manage_comments, instagram_manage_messages: the character's replies (engagement).
  readonly scopes = [
    'instagram_basic', 'instagram_content_publish', 'instagram_manage_insights', 'instagram_manage_comments', 'instagram_manage_messages',
    'pages_show_list', 'pages_read_engagement', 'business_management',
  ] as const;
  private readonly http: PlatformHttp;
  private readonly api: string;

  constructor(private readonly options: PlatformClientOptions) {
    this.http = new GraphHttp(LABEL, options);
    this.api = options.apiUrl.replace(/\/+$/, '');
  }

  authorizeUrl({ state, redirectUri }: AuthorizeParams): string {
    const params = { client_id: this.options.clientId, redirect_uri: redirectUri, state, scope: this.scopes.join(','), response_type: 'code' };
    return consentUrl(this.options.authorizeUrl, params);
  }

  async exchangeCode({ code, redirectUri }: { code: string; redirectUri: string; codeVerifier?: string }): Promise<ConnectedAccount> {
    const { clientId, clientSecret } = this.options;
    const short = await this.grant({ client_id: clientId, client_secret: clientSecret, redirect_uri: redirectUri, code }, 'the authorization code');
    const tokens = await this.longLived(tokensFrom(short, LABEL).accessToken);
    return { ...tokens, account: await this.linkedAccount(tokens.accessToken) };
  }

  /** Facebook has no refresh token: a long-lived token is exchanged for a fresh one before it expires. */
  refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.longLived(refreshToken);
  }

  async revoke({ accessToken }: { accessToken: string; refreshToken: string | null }): Promise<void> {
    try {
      await this.http.call(`${this.api}/me/permissions`, { what: 'the revocation', method: 'DELETE', bearer: accessToken, retries: 0 });
    } catch {
      // Best effort: the user can still remove the app in their Facebook settings.
    }
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    assertMediaAccepted(this.platform, request);
    const plan = containerPlan(request);
    const ig = request.account.id;
    const children: string[] = [];
    for (const child of plan.children) children.push(await this.createContainer(ig, child, request.accessToken));
    // Graph takes a carousel's children only once each finished processing.
    for (const child of children) await this.awaitContainer(child, request.accessToken);
    const parent = children.length > 0 ? { ...plan.parent, children: children.join(',') } : plan.parent;
    const creationId = await this.createContainer(ig, parent, request.accessToken);
    await this.awaitContainer(creationId, request.accessToken);
    const mediaId = await this.publishContainer(ig, creationId, request.accessToken);
    return resultOf(mediaId, await this.mediaDetails(mediaId, request.accessToken), request.media.map((m) => m.url));
  }

  async reconcile(query: ReconcileQuery): Promise<PublishResult | null> {
    // Stories are not listed under /media and carry no caption: their absence there proves nothing.
    if (query.contentType === 'story') throw new PublishFailure('unconfirmed', 'Instagram cannot show whether a story was posted.');
    const url = withQuery(`${this.api}/${encodeURIComponent(query.account.id)}/media`, {
      fields: 'id,caption,permalink,timestamp,media_url,children{media_url}',
      limit: String(RECONCILE_PAGE),
    });
    const { data } = await this.http.call<{ data?: GraphMedia[] }>(url, { what: 'the recent media list', bearer: query.accessToken });
    const since = query.since.getTime() - RECONCILE_SKEW_MS;
    const text = query.text.trim();
    const match = (data.data ?? []).find(
      (m) => !query.knownRemoteIds.has(m.id) && (m.caption ?? '').trim() === text && Date.parse(m.timestamp ?? '') >= since,
    );
    return match ? resultOf(match.id, match, []) : null;
  }

  readMetrics(query: MetricsQuery): Promise<MetricsReading> {
    return readInstagramMetrics(this.http, this.api, query);
  }

  /**
   * A comment is answered under it (`POST /{comment-id}/replies`); a direct message goes through
   * the Instagram Messaging API (`POST /{ig-user-id}/messages`), which only reaches someone who
   * wrote to the account in the last 24 hours (Graph refuses it otherwise: content_rejected).
   */
  async sendReply(request: ReplyRequest): Promise<ReplyResult> {
    assertReplyAccepted(this.platform, request);
    if (request.channel === 'comment') {
      const { data } = await this.http.call<{ id?: string }>(`${this.api}/${encodeURIComponent(request.target)}/replies`, {
        what: 'the comment reply', method: 'POST', form: { message: request.text }, bearer: request.accessToken, irreversible: true,
      });
      return sentReply(LABEL, data.id, 'the comment reply');
    }
    const { data } = await this.http.call<{ message_id?: string }>(`${this.api}/${encodeURIComponent(request.account.id)}/messages`, {
      what: 'the direct message', method: 'POST', json: { recipient: { id: request.target }, message: { text: request.text } }, bearer: request.accessToken, irreversible: true,
    });
    return sentReply(LABEL, data.message_id, 'the direct message');
  }

  // ---- OAuth -------------------------------------------------------------------------------

  /** Graph's token endpoint takes the grant as a GET query, not a POSTed form. */
  private async grant(params: Form, what: string): Promise<TokenAnswer> {
    return grantCall<TokenAnswer>(this.http, withQuery(this.options.tokenUrl, params), { what });
  }

  /** A token (short- or long-lived) exchanged for a long-lived one, kept as its own refresh token. */
  private async longLived(token: string): Promise<PlatformTokens> {
    const { clientId, clientSecret } = this.options;
    const answer = await this.grant(
      { grant_type: 'fb_exchange_token', client_id: clientId, client_secret: clientSecret, fb_exchange_token: token },
      'the long-lived token exchange',
    );
    const tokens = tokensFrom(answer, LABEL);
    return { ...tokens, refreshToken: tokens.accessToken, scopes: await this.grantedScopes(tokens.accessToken) };
  }

  /** Graph's token answer names no scopes; the user may have declined some at consent. */
  private async grantedScopes(token: string): Promise<string[]> {
    try {
      const { data } = await this.http.call<{ data?: { permission: string; status: string }[] }>(`${this.api}/me/permissions`, {
        what: 'the granted permissions',
        bearer: token,
      });
      return (data.data ?? []).filter((p) => p.status === 'granted').map((p) => p.permission);
    } catch {
      return [];
    }
  }

  /** The first of the user's Pages with a linked Instagram professional account. */
  private async linkedAccount(token: string): Promise<PlatformAccount> {
    const url = withQuery(`${this.api}/me/accounts`, { fields: 'id,name,instagram_business_account{id,username}' });
    const { data } = await this.http.call<PagesAnswer>(url, { what: 'the account look-up', bearer: token });
    const page = (data.data ?? []).find((p) => p.instagram_business_account?.id);
    const ig = page?.instagram_business_account;
    if (!page || !ig) {
      throw new PublishFailure(
        'unknown_error',
        `${LABEL}: no Instagram professional account is linked to the Facebook Pages this login can see. Link one to a Page and connect again.`,
      );
    }
    return { id: ig.id, name: ig.username ?? page.name ?? ig.id };
  }

  // ---- publishing ----------------------------------------------------------------------------

  private async createContainer(ig: string, form: Form, token: string): Promise<string> {
    const { data } = await this.http.call<{ id?: string }>(`${this.api}/${encodeURIComponent(ig)}/media`, {
      what: 'the media container',
      method: 'POST',
      form,
      bearer: token,
    });
    if (!data.id) throw new PublishFailure('unknown_error', `${LABEL} made a media container without an id.`);
    return data.id;
  }

  /** Polls until Instagram has fetched and processed the media; nothing is public yet. */
  private async awaitContainer(id: string, token: string): Promise<void> {
    const { pollIntervalMs, pollTimeoutMs } = this.options;
    const deadline = Date.now() + pollTimeoutMs;
    const url = withQuery(`${this.api}/${encodeURIComponent(id)}`, { fields: 'status_code,status' });
    for (;;) {
      const { data } = await this.http.call<ContainerStatus>(url, { what: 'the media container status', bearer: token });
      if (data.status_code === 'FINISHED') return;
      if (data.status_code === 'ERROR' || data.status_code === 'EXPIRED') {
        throw new PublishFailure('content_rejected', `${LABEL} could not process the media (${data.status_code}${data.status ? `: ${data.status}` : ''}).`);
      }
      if (Date.now() + pollIntervalMs > deadline) {
        throw new PublishFailure('network_error', `${LABEL} did not finish processing the media within ${pollTimeoutMs} ms.`, 'before');
      }
      await pause(pollIntervalMs);
    }
  }

  /** The one irreversible call: Graph publishes a container at most once. */
  private async publishContainer(ig: string, creationId: string, token: string): Promise<string> {
    const { data } = await this.http.call<{ id?: string }>(`${this.api}/${encodeURIComponent(ig)}/media_publish`, {
      what: 'the publish call',
      method: 'POST',
      form: { creation_id: creationId },
      bearer: token,
      irreversible: true,
    });
    if (!data.id) throw new PublishFailure('unknown_error', `${LABEL} answered the publish call without a media id.`, 'unknown');
    return data.id;
  }

  /** Permalink and served URLs; the post is already public, so a failure here only costs the link. */
  private async mediaDetails(mediaId: string, token: string): Promise<GraphMedia | null> {
    try {
      const url = withQuery(`${this.api}/${encodeURIComponent(mediaId)}`, { fields: MEDIA_FIELDS });
      return (await this.http.call<GraphMedia>(url, { what: 'the permalink look-up', bearer: token, retries: 0 })).data;
    } catch {
      return null;
    }
  }
}
