import type { ServerResponse } from 'node:http';
import { FakePlatform, json, type FakePlatformOptions, type FakeRequest, type RecordedPost } from './fake-platform.js';

/**
 * TikTok's Login Kit (OAuth 2 with `client_key`) and Content Posting API (direct post pulled from
 * a URL), on one server. A video init makes the post (tagged 'publish'); the status fetch then
 * reports PROCESSING_DOWNLOAD for `pollsToComplete - 1` polls and PUBLISH_COMPLETE after, or
 * FAILED with `failReason` when that is set (and then no post is recorded).
 */
export const TIKTOK_PATHS = { apiUrl: '', authorizeUrl: '/v2/auth/authorize/', tokenUrl: '/v2/oauth/token/', uploadUrl: '' } as const;

const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];

interface PublishJob {
  publishId: string;
  accountId: string;
  polls: number;
  post?: RecordedPost;
}

export class TikTokFake extends FakePlatform {
  /** Status polls until PUBLISH_COMPLETE (or FAILED). */
  pollsToComplete = 2;
  /** When set, processing ends FAILED with this reason and nothing is posted. */
  failReason: string | null = null;
  /** What creator_info offers; PUBLIC_TO_EVERYONE is absent for private accounts. */
  privacyLevels = [...PRIVACY_LEVELS];
  /** The creator's @handle, as creator_info tells it. */
  username = 'luna.gardens';
  /** 'number': post ids as JSON numbers (TikTok documents int64), too big to survive JSON.parse. */
  postIdFormat: 'string' | 'number' = 'string';
  readonly jobs = new Map<string, PublishJob>();
  private postSeq = 0;

  /** TikTok video ids are 19-digit numbers. */
  nextPostId(): string {
    this.postSeq += 1;
    return String(7_300_000_000_000_000_000n + BigInt(this.postSeq));
  }

  override reset(): void {
    super.reset();
    this.pollsToComplete = 2;
    this.failReason = null;
    this.privacyLevels = [...PRIVACY_LEVELS];
    this.postIdFormat = 'string';
    this.jobs.clear();
  }
}

/** TikTok's API error envelope. */
function apiError(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { data: {}, error: { code, message, log_id: 'fake_log' } });
}

function ok(res: ServerResponse, data: unknown): void {
  json(res, 200, { data, error: { code: 'ok', message: '', log_id: 'fake_log' } });
}

export async function startTikTokFake(options: Partial<FakePlatformOptions> = {}): Promise<TikTokFake> {
  const fake = new TikTokFake({
    clientId: 'tiktok-client',
    clientSecret: 'tiktok-secret',
    accountId: '-000fakeOpenId',
    accountName: 'Luna Gardens',
    accessTtlSeconds: 86_400,
    ...options,
  });
  fake.refuseBody = (res, message) => apiError(res, 400, 'invalid_params', message);
  fake.refuseScope = (res) => apiError(res, 401, 'scope_not_authorized', 'The user did not authorize the scope required for completing this request.');
  fake.mountAuthorize(TIKTOK_PATHS.authorizeUrl, 'client_key');
  mountOAuth(fake);
  mountRevoke(fake);
  mountUserInfo(fake);
  mountPosting(fake);
  return fake.listen();
}

function mountOAuth(fake: TikTokFake): void {
  fake.route('POST', TIKTOK_PATHS.tokenUrl, (req, res) => {
    const form = req.form();
    if (!fake.clientAuthenticated(req, form, 'client_key', 'client_secret')) {
      return json(res, 401, { error: 'invalid_client', error_description: 'Client key or secret is incorrect.', log_id: 'fake_log' });
    }
    const grantType = form.get('grant_type');
    const issued =
      grantType === 'authorization_code'
        ? fake.redeemCode(form.get('code'), form.get('redirect_uri'), form.get('code_verifier'))
        : grantType === 'refresh_token'
          ? fake.redeemRefresh(form.get('refresh_token'))
          : { error: 'unsupported_grant_type' };
    // TikTok reports a refused grant in the body of an HTTP 200.
    if ('error' in issued) return json(res, 200, { error: issued.error, error_description: 'The grant is invalid or expired.', log_id: 'fake_log' });
    json(res, 200, {
      access_token: issued.accessToken,
      expires_in: fake.options.accessTtlSeconds ?? 86_400,
      open_id: issued.accountId,
      refresh_token: issued.refreshToken,
      refresh_expires_in: 31_536_000,
      scope: issued.scopes.join(','),
      token_type: 'Bearer',
    });
  }, { auth: false, tag: 'oauth' });
}

function mountRevoke(fake: TikTokFake): void {
  fake.route('POST', '/v2/oauth/revoke/', (req, res) => {
    const form = req.form();
    if (!fake.clientAuthenticated(req, form, 'client_key', 'client_secret')) return json(res, 401, { error: 'invalid_client', error_description: 'Client key or secret is incorrect.' });
    const token = form.get('token') ?? '';
    const issued = fake.tokens.get(token);
    if (issued) {
      fake.tokens.delete(token);
      if (issued.refreshToken) fake.refreshTokens.delete(issued.refreshToken);
      fake.revoked.push(token);
    }
    json(res, 200, {});
  }, { auth: false, tag: 'oauth' });
}

function mountUserInfo(fake: TikTokFake): void {
  fake.route('GET', '/v2/user/info/', (req, res) => {
    const fields = (req.query.get('fields') ?? '').split(',').filter(Boolean);
    if (fields.length === 0) return apiError(res, 400, 'invalid_params', 'fields is required.');
    const user: Record<string, string> = {};
    if (fields.includes('open_id')) user.open_id = req.account!;
    if (fields.includes('display_name')) user.display_name = fake.options.accountName ?? 'TikTok user';
    if (fields.includes('follower_count')) {
      if (fake.metricCall(res)) return;
      if (!fake.tokens.get(bearerOf(req))?.scopes.includes('user.info.stats')) return apiError(res, 401, 'scope_not_authorized', 'The user did not authorize the scope required for completing this request.');
      if (fake.followers !== null) (user as Record<string, unknown>).follower_count = fake.followers;
    }
    ok(res, { user });
  }, { scopes: { all: ['user.info.basic'] } });
  fake.route('POST', '/v2/video/query/', (req, res) => queryVideos(fake, req, res), { tag: 'metrics' });
}

function bearerOf(req: FakeRequest): string {
  return req.headers.authorization?.replace(/^Bearer /, '') ?? '';
}

/** `POST /v2/video/query/`: at most 20 ids; videos it does not know are missing from `videos`. */
function queryVideos(fake: TikTokFake, req: FakeRequest, res: ServerResponse): void {
  if (!fake.tokens.get(bearerOf(req))?.scopes.includes('video.list')) return apiError(res, 401, 'scope_not_authorized', 'The user did not authorize the scope required for completing this request.');
  const fields = (req.query.get('fields') ?? '').split(',').filter(Boolean);
  const ids = req.json<{ filters?: { video_ids?: string[] } }>().filters?.video_ids ?? [];
  if (fields.length === 0 || ids.length === 0 || ids.length > 20) return apiError(res, 400, 'invalid_params', 'video_ids must hold 1 to 20 ids and fields is required.');
  const videos = ids
    .filter((id) => fake.metrics.has(id))
    .map((id) => ({ id, ...Object.fromEntries(Object.entries(fake.metrics.get(id)!).filter(([k]) => fields.includes(k))) }));
  ok(res, { videos, cursor: 0, has_more: false });
}

function mountPosting(fake: TikTokFake): void {
  fake.route('POST', '/v2/post/publish/creator_info/query/', (_req, res) => {
    ok(res, {
      creator_avatar_url: 'https://p16.tiktokcdn.test/avatar.jpeg',
      creator_username: fake.username,
      creator_nickname: fake.options.accountName,
      privacy_level_options: fake.privacyLevels,
      comment_disabled: false,
      duet_disabled: false,
      stitch_disabled: false,
      max_video_post_duration_sec: 600,
    });
  }, { tag: 'prepare', scopes: { all: ['video.publish'] } });
  // Direct Post needs video.publish; the status fetch serves Direct Post and inbox uploads alike.
  fake.route('POST', '/v2/post/publish/video/init/', (req, res) => initVideo(fake, req, res), { tag: 'publish', scopes: { all: ['video.publish'] } });
  fake.route('POST', '/v2/post/publish/status/fetch/', (req, res) => fetchStatus(fake, req, res), { tag: 'read', scopes: { any: ['video.publish', 'video.upload'] } });
}

/** Validates like TikTok (caption length, an offered privacy level, a pullable URL), then posts. */
function initVideo(fake: TikTokFake, req: FakeRequest, res: ServerResponse): void {
  const body = req.json<{ post_info?: Record<string, unknown>; source_info?: Record<string, unknown> }>();
  const title = body.post_info?.title;
  const privacy = body.post_info?.privacy_level;
  const videoUrl = body.source_info?.video_url;
  if (typeof title !== 'string' || title.length > 2200) return apiError(res, 400, 'invalid_params', 'post_info.title is invalid.');
  if (typeof privacy !== 'string' || !fake.privacyLevels.includes(privacy)) return apiError(res, 400, 'invalid_params', 'privacy_level is not offered to this creator.');
  if (body.source_info?.source !== 'PULL_FROM_URL' || typeof videoUrl !== 'string' || !/^https?:\/\//.test(videoUrl)) {
    return apiError(res, 400, 'invalid_params', 'source_info is invalid.');
  }
  const job: PublishJob = { publishId: `v_pub_url~v2.${fake.newId()}`, accountId: req.account!, polls: 0 };
  if (!fake.failReason) {
    fake.fetchMedia([videoUrl]);
    job.post = fake.recordPost({ id: fake.nextPostId(), accountId: req.account!, text: title, mediaUrls: [videoUrl], extra: { privacy, disableComment: body.post_info?.disable_comment, publishId: job.publishId } });
  }
  fake.jobs.set(job.publishId, job);
  fake.respond(res, 200, { data: { publish_id: job.publishId }, error: { code: 'ok', message: '', log_id: 'fake_log' } });
}

function fetchStatus(fake: TikTokFake, req: FakeRequest, res: ServerResponse): void {
  const job = fake.jobs.get(req.json<{ publish_id?: string }>().publish_id ?? '');
  if (!job || job.accountId !== req.account) return apiError(res, 400, 'invalid_publish_id', 'The publish_id does not exist.');
  job.polls += 1;
  if (job.polls < fake.pollsToComplete) return ok(res, { status: 'PROCESSING_DOWNLOAD', uploaded_bytes: 0 });
  if (!job.post) return ok(res, { status: 'FAILED', fail_reason: fake.failReason ?? 'internal', publicaly_available_post_id: [] });
  const ids = fake.postIdFormat === 'number' ? `[${job.post.id}]` : JSON.stringify([job.post.id]);
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(`{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":${ids},"uploaded_bytes":0},"error":{"code":"ok","message":"","log_id":"fake_log"}}`);
}
