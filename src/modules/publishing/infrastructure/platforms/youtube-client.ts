import {
  PublishFailure,
  type AuthorizeParams,
  type ConnectedAccount,
  type MetricsQuery,
  type CommentsQuery,
  type InboundComment,
  type MetricsReading,
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
import { consentUrl, cutToWeight, onlyVideo, PlatformHttp, readMedia, RECONCILE_SKEW_MS, sentReply, tokenGrant, type PlatformCall, type PlatformReply } from './platform-http.js';
import { assertReplyAccepted } from './reply-rules.js';
import { readYouTubeComments } from './youtube-comments.js';
import { readYouTubeMetrics } from './youtube-metrics.js';

const TITLE_MAX_CHARS = 100;
const DESCRIPTION_MAX_BYTES = 5000;
/** YouTube refuses titles and descriptions containing angle brackets. */
const FORBIDDEN = /[<>]/g;
/** "People & Blogs", the category YouTube itself defaults uploads to. */
const CATEGORY_ID = '22';
/** The upload's time budget grows by a second per MB on top of the call budget (assumes ≥ 1 MB/s upstream). */
const BYTES_PER_SECOND = 1_000_000;
/** Google's quota and upload-limit refusals come as 403 but pass with time: not the content's fault. */
const QUOTA = /quotaExceeded|rateLimitExceeded|uploadLimitExceeded|exceeded (your|the number)/i;

interface ChannelList {
  items?: { id?: string; snippet?: { title?: string } }[];
}
interface Thumbnails {
  default?: { url?: string };
}
interface VideoResource {
  id?: string;
  snippet?: { title?: string; thumbnails?: Thumbnails };
  status?: { uploadStatus?: string; rejectionReason?: string; failureReason?: string };
}
interface SearchList {
  items?: { id?: { videoId?: string }; snippet?: { title?: string; description?: string; publishedAt?: string; thumbnails?: Thumbnails } }[];
}

/**
 * YouTube Data API v3 with Google OAuth 2 (offline access, PKCE). A post is one video sent by
 * resumable upload: opening the session is preparatory; the PUT of the bytes creates the video
 * (the irreversible call). When that PUT's outcome is unknown, the session itself can tell
 * whether the upload completed, so it is asked once before giving up.
 */
export class YouTubeClient implements PlatformClient {
  readonly platform = 'youtube' as const;
  readonly supportsPkce = true;
  // youtube.force-ssl: comments are read and answered only with it (commentThreads.list, comments.insert).
  readonly scopes = ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.readonly', 'https://www.googleapis.com/auth/youtube.force-ssl'] as const;
  private readonly http: PlatformHttp;

  constructor(private readonly options: PlatformClientOptions) {
    this.http = new PlatformHttp('YouTube', options);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    return consentUrl(
      this.options.authorizeUrl,
      {
        client_id: this.options.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: this.scopes.join(' '),
        state,
        // Offline access and a forced consent make Google send a refresh token on every connection.
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
      },
      codeChallenge,
    );
  }

  async exchangeCode(params: { code: string; redirectUri: string; codeVerifier?: string }): Promise<ConnectedAccount> {
    const form = { code: params.code, grant_type: 'authorization_code', redirect_uri: params.redirectUri, code_verifier: params.codeVerifier };
    const tokens = await this.grant(form, null);
    const url = `${this.options.apiUrl}/channels?part=snippet&mine=true`;
    const { data } = await this.call<ChannelList>(url, { what: 'the channel look-up', bearer: tokens.accessToken });
    const channel = data.items?.[0];
    if (!channel?.id) throw new PublishFailure('content_rejected', 'This Google account has no YouTube channel to publish to.');
    return { ...tokens, account: { id: channel.id, name: channel.snippet?.title || channel.id } };
  }

  /** Google usually sends no new refresh token: the one we hold stays valid. */
  refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken }, refreshToken);
  }

  async revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void> {
    const url = new URL(this.options.tokenUrl);
    url.pathname = url.pathname.replace(/[^/]*$/, 'revoke');
    try {
      // Revoking the refresh token also revokes the access tokens issued from it.
      await this.http.call(url.toString(), { what: 'the token revocation', method: 'POST', form: { token: tokens.refreshToken ?? tokens.accessToken }, retries: 0 });
    } catch {
      // Best effort: the user is disconnecting either way.
    }
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    // Every content type YouTube takes is one uploaded video; a vertical one shows as a Short.
    const media = onlyVideo(request, this.platform, 'YouTube');
    const bytes = await readMedia(media, 'The video could not be read for upload');
    const session = await this.openSession(request, media, bytes.length);
    const video = await this.upload(session, request.accessToken, media, bytes);
    return asResult(video, [media.url]);
  }

  async reconcile(query: ReconcileQuery): Promise<PublishResult | null> {
    const url = `${this.options.apiUrl}/search?part=snippet&forMine=true&type=video&order=date&maxResults=50`;
    const { data } = await this.call<SearchList>(url, { what: 'the recent videos', bearer: query.accessToken });
    const title = videoTitle(query.title, query.text);
    const description = videoDescription(query.text);
    const since = query.since.getTime() - RECONCILE_SKEW_MS;
    const hit = (data.items ?? []).find((item) => {
      const id = item.id?.videoId;
      const snippet = item.snippet;
      if (!id || query.knownRemoteIds.has(id) || !snippet) return false;
      if (!(Date.parse(snippet.publishedAt ?? '') >= since)) return false;
      return decodeHtml(snippet.title ?? '') === title && sameDescription(snippet.description ?? '', description);
    });
    if (!hit?.id?.videoId) return null;
    return asResult({ id: hit.id.videoId, snippet: { thumbnails: hit.snippet?.thumbnails } }, []);
  }

  /** Quota errors (403 quotaExceeded) come back as rate_limited through `call`, as for publishing. */
  readMetrics(query: MetricsQuery): Promise<MetricsReading> {
    return readYouTubeMetrics((url, call) => this.call(url, call), this.options.apiUrl, query);
  }

  /**
   * A reply under a top-level comment (`comments.insert`, 50 quota units); YouTube has no direct
   * messages, so a `dm` is refused before any call.
   */
  async sendReply(request: ReplyRequest): Promise<ReplyResult> {
    assertReplyAccepted(this.platform, request);
    try {
      const { data } = await this.call<{ id?: string }>(`${this.options.apiUrl}/comments?part=snippet`, {
        what: 'the comment reply', method: 'POST', bearer: request.accessToken, json: { snippet: { parentId: request.target, textOriginal: request.text } }, irreversible: true,
      });
      return sentReply('YouTube', data.id, 'the comment reply');
    } catch (err) {
      // 404 commentNotFound: the comment answered was deleted or hidden; this reply can never be sent.
      if (err instanceof PublishFailure && err.code === 'unknown_error' && err.point === 'before' && / 404 /.test(err.message)) {
        throw new PublishFailure('content_rejected', `YouTube no longer shows the comment answered: ${err.message}`);
      }
      throw err;
    }
  }

  /** Comments on the channel's videos since `since` (`commentThreads.list`, 1 quota unit a page). */
  readComments(query: CommentsQuery): Promise<InboundComment[]> {
    return readYouTubeComments((url, call) => this.call(url, call), this.options.apiUrl, query);
  }

  /** Google takes the client credentials in the form body. */
  private async grant(form: Record<string, string | undefined>, previousRefresh: string | null): Promise<PlatformTokens> {
    const credentials = { client_id: this.options.clientId, client_secret: this.options.clientSecret };
    return tokenGrant(this.http, this.options.tokenUrl, { ...form, ...credentials }, previousRefresh);
  }

  /** Opens the resumable session with the video's metadata; nothing exists on YouTube yet. */
  private async openSession(request: PublishRequest, media: PublishMedia, size: number): Promise<string> {
    const metadata = {
      snippet: { title: videoTitle(request.title, request.text), description: videoDescription(request.text), categoryId: CATEGORY_ID },
      status: { privacyStatus: 'public', selfDeclaredMadeForKids: false },
    };
    const url = `${this.options.uploadUrl}/videos?uploadType=resumable&part=snippet,status`;
    const headers = { 'X-Upload-Content-Type': media.contentType, 'X-Upload-Content-Length': String(size) };
    const reply = await this.call(url, { what: 'the upload session', method: 'POST', bearer: request.accessToken, json: metadata, headers });
    const session = reply.headers.get('location');
    if (!session) throw new PublishFailure('unknown_error', 'YouTube opened no upload session (no Location).');
    return session;
  }

  /** The irreversible call: the last byte received creates the video. */
  private async upload(session: string, token: string, media: PublishMedia, bytes: Buffer): Promise<VideoResource> {
    let video: VideoResource;
    try {
      const timeoutMs = this.options.timeoutMs + Math.floor(bytes.length / BYTES_PER_SECOND) * 1000;
      const call = { what: 'the video upload', method: 'PUT', bearer: token, body: bytes, headers: { 'Content-Type': media.contentType }, irreversible: true, timeoutMs };
      ({ data: video } = await this.call<VideoResource>(session, call));
    } catch (err) {
      // An unknown outcome (or an unreadable answer) can be settled by asking the session.
      if (!(err instanceof PublishFailure) || (err.point !== 'unknown' && err.code !== 'unknown_error')) throw err;
      video = await this.uploadStatus(session, token, bytes.length, err);
    }
    return checked(video);
  }

  /**
   * Asks the session whether the upload completed: 200/201 with the video if it did, 308
   * "Resume Incomplete" if it did not (no video exists, so a fresh attempt is safe).
   */
  private async uploadStatus(session: string, token: string, total: number, unknown: PublishFailure): Promise<VideoResource> {
    try {
      const headers = { 'Content-Range': `bytes */${total}` };
      const { data } = await this.http.call<VideoResource>(session, { what: 'the upload status', method: 'PUT', bearer: token, body: '', headers });
      return data;
    } catch (err) {
      // PlatformHttp reports any non-2xx as a failure; a 308 here is the session's "not complete".
      if (err instanceof PublishFailure && err.code === 'unknown_error' && err.message.includes(' 308 ')) {
        throw new PublishFailure('network_error', 'YouTube did not receive the whole video, so no video was created.', 'before');
      }
      throw unknown;
    }
  }

  private async call<T = unknown>(url: string, call: PlatformCall): Promise<PlatformReply<T>> {
    try {
      return await this.http.call<T>(url, call);
    } catch (err) {
      if (err instanceof PublishFailure && err.code === 'content_rejected' && QUOTA.test(err.message)) {
        throw new PublishFailure('rate_limited', err.message, 'before', err.retryAfterMs);
      }
      throw err;
    }
  }
}

/** A created video; one YouTube took but then refused or could not process is content_rejected. */
function checked(video: VideoResource): VideoResource {
  if (!video.id) throw new PublishFailure('unknown_error', 'YouTube answered the upload without a video id.', 'unknown');
  const status = video.status?.uploadStatus;
  if (status === 'rejected' || status === 'failed') {
    const reason = video.status?.rejectionReason ?? video.status?.failureReason ?? 'no reason given';
    throw new PublishFailure('content_rejected', `YouTube ${status} the video: ${reason}.`);
  }
  return video;
}

function asResult(video: VideoResource, fallbackMedia: string[]): PublishResult {
  const id = video.id!;
  const thumbnail = video.snippet?.thumbnails?.default?.url;
  return { remotePostId: id, remoteUrl: `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`, mediaUrls: thumbnail ? [thumbnail] : fallbackMedia };
}

/** The title as sent (and as reconcile compares it): no angle brackets, one line, ≤ 100 characters. */
export function videoTitle(title: string, text: string): string {
  const clean = (s: string) => s.replace(FORBIDDEN, '').replace(/\s+/g, ' ').trim();
  const chosen = clean(title) || clean(text.split('\n')[0] ?? '') || 'Video';
  return Array.from(chosen).slice(0, TITLE_MAX_CHARS).join('').trim();
}

/** The description as sent: no angle brackets, ≤ 5000 bytes of UTF-8 cut on a character boundary. */
export function videoDescription(text: string): string {
  const clean = text.replace(FORBIDDEN, '');
  if (Buffer.byteLength(clean) <= DESCRIPTION_MAX_BYTES) return clean;
  return cutToWeight(clean, DESCRIPTION_MAX_BYTES, (char) => Buffer.byteLength(char));
}

/** search.list escapes HTML in snippets (`&#39;`, `&amp;`). */
function decodeHtml(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, entity: string) => {
    if (entity[0] !== '#') return named[entity.toLowerCase()];
    return String.fromCodePoint(entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10));
  });
}

/** search.list shortens long descriptions: the listed one must be ours or the start of ours. */
function sameDescription(listed: string, ours: string): boolean {
  const decoded = decodeHtml(listed);
  if (decoded === ours) return true;
  const stem = decoded.replace(/(\.\.\.|…)$/, '').trimEnd();
  return stem.length > 0 && ours.startsWith(stem);
}
