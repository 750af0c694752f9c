import { randomBytes } from 'node:crypto';
import {
  assertMediaAccepted,
  PublishFailure,
  type AuthorizeParams,
  type ConnectedAccount,
  type MetricsQuery,
  type CommentsQuery,
  type InboundComment,
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
import { basicAuth, consentUrl, cutToWeight, PlatformHttp, readMedia, RECONCILE_SKEW_MS, sentReply, tokenGrant, withQuery } from './platform-http.js';
import { assertReplyAccepted } from './reply-rules.js';
import { readXMentions } from './x-mentions.js';
import { readXMetrics } from './x-metrics.js';
import { charWeight, tweetWeight, URL_PATTERN } from './x-text.js';

export { tweetWeight } from './x-text.js';

/** X takes up to four photos on one post; video and GIF need the chunked upload, which we do not use. */
const TWEET_LIMIT = 280;
const ELLIPSIS = '…';

interface UserAnswer {
  data?: { id?: string; name?: string; username?: string };
}
interface MediaAnswer {
  data?: { id?: string; media_key?: string };
}
interface DmAnswer {
  data?: { dm_conversation_id?: string; dm_event_id?: string };
}
interface TweetAnswer {
  data?: { id?: string; text?: string };
}
interface TimelineAnswer {
  data?: { id: string; text: string; created_at?: string; attachments?: { media_keys?: string[] } }[];
  includes?: { media?: { media_key: string; url?: string }[] };
  meta?: { next_token?: string };
}

/** Tweets one timeline read answers at most (X's maximum `max_results`), and the pages a reconciliation reads. */
const TIMELINE_PAGE = 100;
const TIMELINE_PAGES = 30;

/**
 * X (API v2) with OAuth 2.0 authorization code + PKCE as a confidential client. A post is one
 * tweet with 1–4 photos: each photo is uploaded (`POST /2/media/upload`, retryable, nothing
 * public yet), then `POST /2/tweets` makes it public (the irreversible call).
 */
export class XClient implements PlatformClient {
  readonly platform = 'twitter' as const;
  readonly supportsPkce = true;
  // dm.read and dm.write: the character's direct messages (engagement); X wants dm.read with dm.write.
  readonly scopes = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'dm.read', 'dm.write', 'offline.access'] as const;
  private readonly http: PlatformHttp;

  constructor(private readonly options: PlatformClientOptions) {
    this.http = new PlatformHttp('X', options);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    const params = { response_type: 'code', client_id: this.options.clientId, redirect_uri: redirectUri, scope: this.scopes.join(' '), state };
    return consentUrl(this.options.authorizeUrl, params, codeChallenge);
  }

  async exchangeCode(params: { code: string; redirectUri: string; codeVerifier?: string }): Promise<ConnectedAccount> {
    const form = { code: params.code, grant_type: 'authorization_code', redirect_uri: params.redirectUri, code_verifier: params.codeVerifier };
    const tokens = await this.grant(form, null);
    const { data } = await this.http.call<UserAnswer>(`${this.options.apiUrl}/2/users/me`, { what: 'the account look-up', bearer: tokens.accessToken });
    if (!data.data?.id || !data.data.username) throw new PublishFailure('unknown_error', 'X did not say which account was connected.');
    return { ...tokens, account: { id: data.data.id, name: data.data.username } };
  }

  /** X rotates refresh tokens: the answer carries a new one, which replaces the old. */
  refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken }, refreshToken);
  }

  /** Revokes the refresh token (the long-lived one) and the access token; never throws. */
  async revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void> {
    const revocations: [string, string][] = [[tokens.accessToken, 'access_token']];
    if (tokens.refreshToken) revocations.unshift([tokens.refreshToken, 'refresh_token']);
    for (const [token, hint] of revocations) {
      try {
        await this.http.call(`${this.options.apiUrl}/2/oauth2/revoke`, {
          what: 'the token revocation',
          method: 'POST',
          form: { token, token_type_hint: hint },
          headers: this.clientAuth(),
        });
      } catch {
        // Best effort: the user can still remove the app in X's settings.
      }
    }
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    // Singles and carousels of photos only: the media rules table says what X takes.
    assertMediaAccepted(this.platform, request);
    const mediaIds: string[] = [];
    for (const [index, media] of request.media.entries()) mediaIds.push(await this.upload(request.accessToken, media, index));
    const id = await this.tweet(request, mediaIds);
    return { remotePostId: id, remoteUrl: permalink(request.account, id), mediaUrls: request.media.map((m) => m.url) };
  }

  /**
   * Looks through the account's own timeline since `since` for a tweet with the text we send, page
   * by page. Absent only when every tweet since then was read; past the pages read it cannot tell
   * this time (a post taken for absent is sent again).
   */
  async reconcile(query: ReconcileQuery): Promise<PublishResult | null> {
    const from = new Date(query.since.getTime() - RECONCILE_SKEW_MS);
    const wanted = comparable(tweetText(query.text));
    let token: string | undefined;
    for (let page = 0; page < TIMELINE_PAGES; page++) {
      const url = withQuery(`${this.options.apiUrl}/2/users/${encodeURIComponent(query.account.id)}/tweets`, {
        max_results: String(TIMELINE_PAGE),
        // X wants RFC 3339 without fractional seconds.
        start_time: from.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        'tweet.fields': 'created_at,attachments',
        expansions: 'attachments.media_keys',
        'media.fields': 'url',
        pagination_token: token,
      });
      const { data } = await this.http.call<TimelineAnswer>(url, { what: 'the recent posts', bearer: query.accessToken });
      const found = (data.data ?? []).find(
        (t) => !query.knownRemoteIds.has(t.id) && comparable(t.text) === wanted && (!t.created_at || Date.parse(t.created_at) >= from.getTime()),
      );
      if (found) {
        const media = new Map((data.includes?.media ?? []).map((m) => [m.media_key, m.url]));
        const mediaUrls = (found.attachments?.media_keys ?? []).map((k) => media.get(k)).filter((u): u is string => !!u);
        return { remotePostId: found.id, remoteUrl: permalink(query.account, found.id), mediaUrls };
      }
      token = data.meta?.next_token;
      if (!token) return null;
    }
    throw new PublishFailure('unknown_error', `X shows more than ${TIMELINE_PAGES * TIMELINE_PAGE} posts since the attempt; it cannot tell whether this one was made.`);
  }

  readMetrics(query: MetricsQuery): Promise<MetricsReading> {
    return readXMetrics(this.http, this.options.apiUrl, query);
  }

  /**
   * A mention is answered with a reply post (`POST /2/tweets` with `reply.in_reply_to_tweet_id`),
   * a direct message in the one-to-one conversation with its sender
   * (`POST /2/dm_conversations/with/{participant_id}/messages`). Both are sent once.
   */
  async sendReply(request: ReplyRequest): Promise<ReplyResult> {
    assertReplyAccepted(this.platform, request);
    const { apiUrl } = this.options;
    if (request.channel === 'comment') {
      try {
        const { data } = await this.http.call<TweetAnswer>(`${apiUrl}/2/tweets`, {
          what: 'the reply', method: 'POST', bearer: request.accessToken, json: { text: request.text, reply: { in_reply_to_tweet_id: request.target } }, irreversible: true,
        });
        return sentReply('X', data.data?.id, 'the reply');
      } catch (err) {
        throw duplicateFailure(err);
      }
    }
    const { data } = await this.http.call<DmAnswer>(`${apiUrl}/2/dm_conversations/with/${encodeURIComponent(request.target)}/messages`, {
      what: 'the direct message', method: 'POST', bearer: request.accessToken, json: { text: request.text }, irreversible: true,
    });
    return sentReply('X', data.data?.dm_event_id, 'the direct message');
  }

  /** Mentions of the account since `since`, for plans whose Account Activity webhooks are not available. */
  readComments(query: CommentsQuery): Promise<InboundComment[]> {
    return readXMentions(this.http, this.options.apiUrl, query);
  }

  private async grant(form: Record<string, string | undefined>, previousRefresh: string | null): Promise<PlatformTokens> {
    return tokenGrant(this.http, this.options.tokenUrl, form, previousRefresh, { headers: this.clientAuth(), what: 'the token request' });
  }

  /** X authenticates a confidential client on its token and revocation endpoints with Basic auth. */
  private clientAuth(): Record<string, string> {
    return { Authorization: basicAuth(this.options.clientId, this.options.clientSecret) };
  }

  /** The irreversible call: the tweet with its photos goes public. */
  private async tweet(request: PublishRequest, mediaIds: string[]): Promise<string> {
    try {
      const { data } = await this.http.call<TweetAnswer>(`${this.options.apiUrl}/2/tweets`, {
        what: 'the post',
        method: 'POST',
        bearer: request.accessToken,
        json: { text: tweetText(request.text), media: { media_ids: mediaIds } },
        irreversible: true,
      });
      if (!data.data?.id) throw new PublishFailure('unknown_error', 'X answered the post without its id.', 'unknown');
      return data.data.id;
    } catch (err) {
      throw duplicateFailure(err);
    }
  }

  /** One photo as multipart/form-data; the id it gets is attached to the tweet. */
  private async upload(accessToken: string, media: PublishMedia, index: number): Promise<string> {
    const bytes = await readMedia(media, 'The image for X could not be read');
    const { body, contentType } = multipart([
      { name: 'media', value: bytes, filename: `image${index + 1}.${extensionOf(media.contentType)}`, contentType: media.contentType },
      { name: 'media_category', value: 'tweet_image' },
    ]);
    const { data } = await this.http.call<MediaAnswer>(`${this.options.uploadUrl}/2/media/upload`, {
      what: 'the image upload',
      method: 'POST',
      bearer: accessToken,
      headers: { 'Content-Type': contentType },
      body,
    });
    if (!data.data?.id) throw new PublishFailure('unknown_error', 'X answered the image upload without a media id.');
    return data.data.id;
  }
}

/** A 403 "duplicate content" is X refusing to post the same text twice: say so plainly. */
function duplicateFailure(err: unknown): Error {
  if (err instanceof PublishFailure && err.code === 'content_rejected' && /duplicate content/i.test(err.message)) {
    return new PublishFailure('content_rejected', 'X refused the post as a duplicate of a recent one.');
  }
  return err as Error;
}

function permalink(account: PlatformAccount, id: string): string {
  return `https://x.com/${encodeURIComponent(account.name)}/status/${id}`;
}

function extensionOf(contentType: string): string {
  const sub = contentType.split('/')[1]?.split(';')[0]?.trim() ?? '';
  return sub === 'jpeg' ? 'jpg' : sub || 'bin';
}

export interface MultipartField {
  name: string;
  value: string | Buffer;
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body with a random boundary (RFC 7578); fetch's FormData would hide the bytes from our HTTP layer. */
export function multipart(fields: MultipartField[]): { body: Buffer; contentType: string } {
  const boundary = `----PersonaStudio${randomBytes(16).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const field of fields) {
    const filename = field.filename ? `; filename="${field.filename}"` : '';
    const type = field.contentType ? `\r\nContent-Type: ${field.contentType}` : '';
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field.name}"${filename}${type}\r\n\r\n`));
    parts.push(typeof field.value === 'string' ? Buffer.from(field.value) : field.value, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The text X will take: unchanged when it fits 280 weighted characters, else cut at the last
 * word boundary that leaves room for an ellipsis ("…"). The weight follows X's counting (most
 * Latin text 1 per character, CJK and emoji 2, any URL 23), so a caption is never refused as
 * too long. Reconciliation compares against this same text.
 */
export function tweetText(text: string): string {
  if (tweetWeight(text) <= TWEET_LIMIT) return text;
  const pieces = text.split(/(\s+)/);
  let kept = '';
  for (const piece of pieces) {
    const next = kept + piece;
    if (tweetWeight(next.trimEnd() + ELLIPSIS) > TWEET_LIMIT) break;
    kept = next;
  }
  kept = kept.trimEnd();
  // A first word longer than the limit (a run without spaces): cut inside it.
  if (!kept) kept = cutToWeight(text, TWEET_LIMIT - tweetWeight(ELLIPSIS), charWeight);
  return kept + ELLIPSIS;
}

/**
 * A tweet's text as X serves it differs from what was sent: `&`, `<` and `>` come back as HTML
 * entities, URLs as t.co links, and a photo adds a trailing t.co link. Compare without those.
 */
function comparable(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(URL_PATTERN, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
