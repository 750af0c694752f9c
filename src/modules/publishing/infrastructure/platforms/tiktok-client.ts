import {
  PublishFailure,
  type AuthorizeParams,
  type ConnectedAccount,
  type MetricsQuery,
  type MetricsReading,
  type PlatformClient,
  type PlatformClientOptions,
  type PlatformTokens,
  type PublishMedia,
  type PublishRequest,
  type PublishResult,
  type ReconcileQuery,
} from '../../application/ports/platform-client.js';
import { consentUrl, grantCall, onlyVideo, pause, PlatformHttp, tokensFrom, type PlatformCall } from './platform-http.js';
import { readTikTokMetrics } from './tiktok-metrics.js';

/** The post TikTok made for `publishId`; its public id and URL when TikTok names one. */
function publishResult(status: StatusData, publishId: string, username: string, videoUrl: string | null): PublishResult {
  const postId = publicPostId(status);
  return {
    remotePostId: postId ?? publishId,
    remoteUrl: postId ? `https://www.tiktok.com/@${encodeURIComponent(username)}/video/${postId}` : null,
    mediaUrls: videoUrl ? [videoUrl] : [],
  };
}

/** TikTok's caption limit, in UTF-16 code units. */
const TITLE_MAX = 2200;
const PREFERRED_PRIVACY = 'PUBLIC_TO_EVERYONE';

interface TikTokError {
  code?: string;
  message?: string;
  log_id?: string;
}
/** Every Content Posting / Display API answer: `data` plus an `error` whose code is 'ok' on success. */
interface TikTokAnswer<T> {
  data?: T;
  error?: TikTokError;
}
interface TokenAnswer {
  access_token?: string;
  expires_in?: number;
  open_id?: string;
  refresh_token?: string;
  scope?: string;
  /** TikTok's token endpoint reports refusals in the body, sometimes with HTTP 200. */
  error?: string;
  error_description?: string;
}
interface UserInfo {
  user?: { open_id?: string; display_name?: string };
}
interface CreatorInfo {
  creator_username?: string;
  privacy_level_options?: string[];
  comment_disabled?: boolean;
}
interface InitData {
  publish_id?: string;
}
interface StatusData {
  status?: string;
  fail_reason?: string;
  /** TikTok's own spelling. Documented as int64: ids beyond 2^53 cannot survive JSON.parse as numbers. */
  publicaly_available_post_id?: (string | number)[];
}

/**
 * TikTok Content Posting API, direct post from a public URL (PULL_FROM_URL). The creator-info
 * query is preparatory; `POST /v2/post/publish/video/init/` is the irreversible call (TikTok
 * starts pulling and then posts on its own); the status polls that follow happen after it, so
 * any failure there leaves the outcome unknown. TikTok cannot list a creator's posts with these
 * scopes, so there is no `reconcile`.
 */
export class TikTokClient implements PlatformClient {
  readonly platform = 'tiktok' as const;
  readonly supportsPkce = true;
  // user.info.stats and video.list: the follower count and the videos' metrics (analytics).
  readonly scopes = ['user.info.basic', 'user.info.stats', 'video.list', 'video.publish'] as const;
  private readonly http: PlatformHttp;

  constructor(private readonly options: PlatformClientOptions) {
    this.http = new PlatformHttp('TikTok', options);
  }

  authorizeUrl({ state, redirectUri, codeChallenge }: AuthorizeParams): string {
    // TikTok names the client id `client_key`.
    const params = { client_key: this.options.clientId, scope: this.scopes.join(','), response_type: 'code', redirect_uri: redirectUri, state };
    return consentUrl(this.options.authorizeUrl, params, codeChallenge);
  }

  async exchangeCode(params: { code: string; redirectUri: string; codeVerifier?: string }): Promise<ConnectedAccount> {
    const answer = await this.grant({
      code: params.code,
      grant_type: 'authorization_code',
      redirect_uri: params.redirectUri,
      code_verifier: params.codeVerifier,
    });
    const tokens = tokensFrom(answer, 'TikTok');
    const url = `${this.options.apiUrl}/v2/user/info/?fields=open_id,display_name`;
    const { data } = await this.http.call<TikTokAnswer<UserInfo>>(url, { what: 'the account look-up', bearer: tokens.accessToken });
    checkAnswer(data, 'the account look-up');
    const id = data.data?.user?.open_id ?? answer.open_id;
    if (!id) throw new PublishFailure('unknown_error', 'TikTok did not say which account was connected.');
    return { ...tokens, account: { id, name: data.data?.user?.display_name ?? id } };
  }

  async refresh(refreshToken: string): Promise<PlatformTokens> {
    const answer = await this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken });
    return tokensFrom(answer, 'TikTok', refreshToken);
  }

  async revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void> {
    const form = { client_key: this.options.clientId, client_secret: this.options.clientSecret, token: tokens.accessToken };
    try {
      await this.http.call(`${this.options.apiUrl}/v2/oauth/revoke/`, { what: 'the token revocation', method: 'POST', form, retries: 0 });
    } catch {
      // Best effort: the user is disconnecting either way, and the token expires on its own.
    }
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    // Every content type TikTok takes is one video posted to the feed.
    const video = onlyVideo(request, this.platform, 'TikTok');
    const creator = await this.creatorInfo(request.accessToken);
    const publishId = await this.init(request, video, creator);
    try {
      const status = await this.awaitPublished(request.accessToken, publishId);
      return publishResult(status, publishId, creator.creator_username || request.account.name, video.url);
    } catch (err) {
      // From here on TikTok knows this attempt by its publish id: a reconciliation asks about it.
      throw err instanceof PublishFailure && err.point === 'unknown' ? err.withHandle(publishId) : err;
    }
  }

  /**
   * TikTok cannot list a creator's posts, but it can tell what became of an accepted attempt: with
   * its publish id, the status is polled again. Posted → the post; refused → null (nothing was made).
   */
  async reconcile(query: ReconcileQuery): Promise<PublishResult | null> {
    if (!query.handle) throw new PublishFailure('unconfirmed', 'TikTok cannot list posts, and this attempt has no publish id to ask about.');
    try {
      const status = await this.awaitPublished(query.accessToken, query.handle);
      return publishResult(status, query.handle, query.account.name, null);
    } catch (err) {
      if (err instanceof PublishFailure && err.code === 'content_rejected') return null;
      throw err;
    }
  }

  /**
   * The OAuth token endpoint; a refused grant (HTTP 400 or an `error` in a 200) is `token_expired`.
   * Answers the raw body: the code exchange also reads its `open_id`.
   */
  private async grant(form: Record<string, string | undefined>): Promise<TokenAnswer> {
    const credentials = { client_key: this.options.clientId, client_secret: this.options.clientSecret };
    const data = await grantCall<TokenAnswer>(this.http, this.options.tokenUrl, { what: 'the token grant', method: 'POST', form: { ...credentials, ...form } });
    if (data.error) {
      const message = `TikTok refused the token grant: ${data.error}${data.error_description ? ` (${data.error_description})` : ''}.`;
      throw new PublishFailure(data.error === 'invalid_grant' ? 'token_expired' : 'unknown_error', message);
    }
    return data;
  }

  /** TikTok requires posting with one of the privacy levels the creator currently allows. */
  private async creatorInfo(token: string): Promise<CreatorInfo> {
    const url = `${this.options.apiUrl}/v2/post/publish/creator_info/query/`;
    const { data } = await this.call<CreatorInfo>(url, { what: 'the creator info', bearer: token, json: {} });
    checkAnswer(data, 'the creator info');
    if (!data.data?.privacy_level_options?.length) {
      throw new PublishFailure('content_rejected', 'TikTok offers this creator no privacy level to post with.');
    }
    return data.data;
  }

  /** The irreversible call: once TikTok accepts it, it pulls the video and posts it by itself. */
  private async init(request: PublishRequest, video: PublishMedia, creator: CreatorInfo): Promise<string> {
    const options = creator.privacy_level_options ?? [];
    const body = {
      post_info: {
        title: truncateUtf16(request.text, TITLE_MAX),
        privacy_level: options.includes(PREFERRED_PRIVACY) ? PREFERRED_PRIVACY : options[0],
        disable_comment: creator.comment_disabled === true,
      },
      source_info: { source: 'PULL_FROM_URL', video_url: video.url },
    };
    const url = `${this.options.apiUrl}/v2/post/publish/video/init/`;
    const { data } = await this.call<InitData>(url, { what: 'the video post', bearer: request.accessToken, json: body, irreversible: true });
    checkAnswer(data, 'the video post');
    if (!data.data?.publish_id) throw new PublishFailure('unknown_error', 'TikTok accepted the video post without a publish id.', 'unknown');
    return data.data.publish_id;
  }

  /** Polls until TikTok posted or refused the video; every failure here comes after the irreversible call. */
  private async awaitPublished(token: string, publishId: string): Promise<StatusData> {
    const deadline = Date.now() + this.options.pollTimeoutMs;
    for (;;) {
      const status = await this.fetchStatus(token, publishId);
      if (status.status === 'PUBLISH_COMPLETE') return status;
      if (status.status === 'FAILED') {
        throw new PublishFailure('content_rejected', `TikTok could not post the video: ${status.fail_reason || 'no reason given'}.`);
      }
      if (status.status === 'SEND_TO_USER_INBOX') {
        // A draft in the creator's inbox is not a post, and posting again would only add another draft.
        throw new PublishFailure('content_rejected', 'TikTok sent the video to the creator’s inbox instead of posting it.');
      }
      if (Date.now() + this.options.pollIntervalMs > deadline) {
        throw new PublishFailure('network_error', `TikTok was still processing the video (${status.status ?? 'no status'}) when we stopped waiting.`, 'unknown');
      }
      await pause(this.options.pollIntervalMs);
    }
  }

  private async fetchStatus(token: string, publishId: string): Promise<StatusData> {
    const url = `${this.options.apiUrl}/v2/post/publish/status/fetch/`;
    try {
      const { data } = await this.call<StatusData>(url, { what: 'the post status', bearer: token, json: { publish_id: publishId } });
      checkAnswer(data, 'the post status');
      return data.data ?? {};
    } catch (err) {
      if (!(err instanceof PublishFailure)) throw err;
      throw new PublishFailure('network_error', `TikTok took the video but its status is unknown: ${err.message}`, 'unknown');
    }
  }

  readMetrics(query: MetricsQuery): Promise<MetricsReading> {
    return readTikTokMetrics((url, call) => this.send(url, call), checkAnswer, this.options.apiUrl, query);
  }

  /** A POST to the Content Posting API. */
  private call<T>(url: string, call: { what: string; bearer: string; json: unknown; irreversible?: boolean }): Promise<{ data: TikTokAnswer<T> }> {
    return this.send<T>(url, { method: 'POST', ...call });
  }

  /** One call, with TikTok's error codes refining the HTTP status mapping. */
  private async send<T>(url: string, call: PlatformCall): Promise<{ status: number; headers: Headers; data: TikTokAnswer<T> }> {
    try {
      return await this.http.call<TikTokAnswer<T>>(url, call);
    } catch (err) {
      const code = err instanceof PublishFailure && err.point === 'before' ? /"code"\s*:\s*"(\w+)"/.exec(err.message)?.[1] : undefined;
      if (!code || !(err instanceof PublishFailure)) throw err;
      throw tiktokFailure(code, err.message, err.retryAfterMs);
    }
  }
}

/** TikTok answers some refusals with HTTP 200 and a non-'ok' error code. */
function checkAnswer(answer: TikTokAnswer<unknown>, what: string): void {
  const code = answer.error?.code;
  if (code && code !== 'ok') throw tiktokFailure(code, `TikTok refused ${what}: ${code}${answer.error?.message ? ` (${answer.error.message})` : ''}.`);
}

function tiktokFailure(code: string, message: string, retryAfterMs?: number): PublishFailure {
  if (code === 'access_token_invalid' || code === 'scope_not_authorized') return new PublishFailure('token_expired', message);
  if (code === 'rate_limit_exceeded' || code === 'spam_risk_too_many_posts') return new PublishFailure('rate_limited', message, 'before', retryAfterMs);
  return new PublishFailure('content_rejected', message);
}

/** The public post id when TikTok gives one we can trust (a number past 2^53 was rounded by JSON.parse). */
function publicPostId(status: StatusData): string | undefined {
  const id = status.publicaly_available_post_id?.[0];
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  return undefined;
}

/** Cuts to `max` UTF-16 code units without splitting a surrogate pair. */
export function truncateUtf16(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
