import type { ServerResponse } from 'node:http';
import { FakePlatform, json, type FakePlatformOptions, type FakeRequest } from './fake-platform.js';

/**
 * Google OAuth 2 and the YouTube Data API v3 on one server: consent, token (refresh answers
 * carry no new refresh token, as Google's do), revoke, channels.list, resumable uploads
 * (sessions with status queries answering 308 until complete) and search.list for reconcile.
 * The final PUT of an upload session is the irreversible call (tagged 'publish').
 */
export const YOUTUBE_PATHS = { apiUrl: '/youtube/v3', authorizeUrl: '/o/oauth2/v2/auth', tokenUrl: '/token', uploadUrl: '/upload/youtube/v3' } as const;

const UPLOAD_PATH = `${YOUTUBE_PATHS.uploadUrl}/videos`;
/** How much of a description search.list shows. */
const SEARCH_DESCRIPTION_CHARS = 160;

export interface FakeVideo {
  kind: 'youtube#video';
  id: string;
  snippet: { publishedAt: string; channelId: string; title: string; description: string; categoryId: string; thumbnails: { default: { url: string; width: number; height: number } } };
  status: { uploadStatus: string; privacyStatus: string; selfDeclaredMadeForKids?: boolean; rejectionReason?: string };
}

interface UploadSession {
  id: string;
  accountId: string;
  metadata: { snippet: Record<string, unknown>; status: Record<string, unknown> };
  contentType: string;
  length: number;
  video?: FakeVideo;
}

/** A top-level comment on one of the channel's videos (`addComment`), as commentThreads.list serves it. */
export interface FakeComment {
  id: string;
  videoId: string;
  /** The channel whose video it is. */
  channelId: string;
  authorChannelId: string;
  authorName: string;
  text: string;
  publishedAt: Date;
}

/** comments.insert refuses longer text (commentTextTooLong). */
const COMMENT_MAX = 10_000;

export class YouTubeFake extends FakePlatform {
  /** Top-level comments on the channel's videos, oldest first (`addComment`). */
  readonly comments: FakeComment[] = [];
  private commentSeq = 0;

  /** What an upload ends as; 'rejected'/'failed' videos are not posts. */
  uploadStatus: 'uploaded' | 'processed' | 'rejected' | 'failed' = 'uploaded';
  rejectionReason = 'duplicate';
  /** False: the Google account has no channel (channels.list answers no items). */
  hasChannel = true;
  readonly sessions = new Map<string, UploadSession>();

  override reset(): void {
    super.reset();
    this.uploadStatus = 'uploaded';
    this.rejectionReason = 'duplicate';
    this.hasChannel = true;
    this.sessions.clear();
    this.comments.length = 0;
  }

  /** Someone comments on a video of the channel (`channelId`, default the fake's account); the channel may reply to it. */
  addComment(c: { videoId: string; authorChannelId: string; authorName: string; text: string; publishedAt?: Date; channelId?: string }): FakeComment {
    this.commentSeq += 1;
    const comment: FakeComment = {
      id: `Ugz${Buffer.from(`${Date.now()}:${this.commentSeq}`).toString('base64url')}AaABAg`,
      videoId: c.videoId,
      channelId: c.channelId ?? this.options.accountId!,
      authorChannelId: c.authorChannelId,
      authorName: c.authorName,
      text: c.text,
      publishedAt: c.publishedAt ?? new Date(),
    };
    this.comments.push(comment);
    return comment;
  }
}

/** Google's API error envelope. */
export function googleError(status: number, reason: string, message: string): unknown {
  return { error: { code: status, message, errors: [{ message, domain: 'youtube.api', reason }] } };
}

function fail(res: ServerResponse, status: number, reason: string, message: string): void {
  json(res, status, googleError(status, reason, message));
}

export async function startYouTubeFake(options: Partial<FakePlatformOptions> = {}): Promise<YouTubeFake> {
  const fake = new YouTubeFake({
    clientId: 'youtube-client',
    clientSecret: 'youtube-secret',
    accountId: 'UCfakeChannel000000000001',
    accountName: 'Luna Gardens',
    accessTtlSeconds: 3599,
    // Google sends a refresh token only when the consent asked for offline access.
    refreshTokenWanted: (_scopes, authorize) => authorize.get('access_type') === 'offline',
    ...options,
  });
  fake.refuseBody = (res, message) => fail(res, 400, 'parseError', message);
  fake.refuseScope = (res) => fail(res, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.');
  fake.mountAuthorize(YOUTUBE_PATHS.authorizeUrl);
  mountOAuth(fake);
  mountApi(fake);
  fake.route('POST', UPLOAD_PATH, (req, res) => openSession(fake, req, res), { tag: 'prepare', scopes: UPLOAD_SCOPES });
  fake.route('PUT', UPLOAD_PATH, (req, res) => putUpload(fake, req, res), { tag: 'publish', scopes: UPLOAD_SCOPES });
  return fake.listen();
}

function mountOAuth(fake: YouTubeFake): void {
  fake.route('POST', YOUTUBE_PATHS.tokenUrl, (req, res) => {
    const form = req.form();
    if (!fake.clientAuthenticated(req, form)) return json(res, 401, { error: 'invalid_client', error_description: 'Unauthorized' });
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const issued = fake.redeemCode(form.get('code'), form.get('redirect_uri'), form.get('code_verifier'));
      if ('error' in issued) return json(res, 400, { error: issued.error, error_description: 'Bad Request' });
      return json(res, 200, { access_token: issued.accessToken, expires_in: 3599, refresh_token: issued.refreshToken, scope: issued.scopes.join(' '), token_type: 'Bearer' });
    }
    if (grantType !== 'refresh_token') return json(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
    const old = form.get('refresh_token');
    const issued = fake.redeemRefresh(old);
    if ('error' in issued) return json(res, 400, { error: issued.error, error_description: 'Token has been expired or revoked.' });
    // Google's refresh tokens outlive their use: keep the old one, and send no new one.
    fake.refreshTokens.delete(issued.refreshToken!);
    issued.refreshToken = old;
    fake.refreshTokens.set(old!, issued);
    json(res, 200, { access_token: issued.accessToken, expires_in: 3599, scope: issued.scopes.join(' '), token_type: 'Bearer' });
  }, { auth: false, tag: 'oauth' });

  fake.route('POST', '/revoke', (req, res) => {
    const token = req.form().get('token') ?? req.query.get('token') ?? '';
    const matches = [...fake.tokens.values()].filter((t) => t.accessToken === token || t.refreshToken === token);
    if (matches.length === 0 && !fake.refreshTokens.has(token)) return json(res, 400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
    for (const t of matches) fake.tokens.delete(t.accessToken);
    fake.refreshTokens.delete(token);
    fake.revoked.push(token);
    json(res, 200, {});
  }, { auth: false, tag: 'oauth' });
}

const AUTH = 'https://www.googleapis.com/auth';
/** videos.insert takes any of these (its reference page's Authorization section). */
const UPLOAD_SCOPES = { any: [`${AUTH}/youtube.upload`, `${AUTH}/youtube`, `${AUTH}/youtube.force-ssl`, `${AUTH}/youtubepartner`] };
/** channels.list, search.list and videos.list read with any of these. */
const READ_SCOPES = { any: [`${AUTH}/youtube.readonly`, `${AUTH}/youtube`, `${AUTH}/youtube.force-ssl`, `${AUTH}/youtubepartner`] };

function mountApi(fake: YouTubeFake): void {
  fake.route('GET', `${YOUTUBE_PATHS.apiUrl}/channels`, (req, res) => {
    const parts = req.query.get('part')?.split(',') ?? [];
    if (req.query.get('mine') !== 'true' || !(parts.includes('snippet') || parts.includes('statistics'))) {
      return fail(res, 400, 'missingRequiredParameter', 'No filter selected.');
    }
    if (parts.includes('statistics') && fake.metricCall(res)) return;
    const snippet = parts.includes('snippet') ? { snippet: { title: fake.options.accountName, description: '', customUrl: '@lunagardens' } } : {};
    const statistics = parts.includes('statistics') ? { statistics: channelStatistics(fake) } : {};
    const items = fake.hasChannel ? [{ kind: 'youtube#channel', id: req.account, ...snippet, ...statistics }] : [];
    json(res, 200, { kind: 'youtube#channelListResponse', pageInfo: { totalResults: items.length, resultsPerPage: 5 }, items });
  }, { scopes: READ_SCOPES });
  fake.route('GET', `${YOUTUBE_PATHS.apiUrl}/search`, (req, res) => search(fake, req, res), { scopes: READ_SCOPES });
  fake.route('GET', `${YOUTUBE_PATHS.apiUrl}/videos`, (req, res) => videoStatistics(fake, req, res), { tag: 'metrics', scopes: READ_SCOPES });
  fake.route('GET', `${YOUTUBE_PATHS.apiUrl}/commentThreads`, (req, res) => commentThreads(fake, req, res), { tag: 'comments', scopes: COMMENT_READ_SCOPES });
  fake.route('POST', `${YOUTUBE_PATHS.apiUrl}/comments`, (req, res) => insertComment(fake, req, res), { tag: 'reply', scopes: COMMENT_WRITE_SCOPES });
}

/** commentThreads.list: its reference asks for youtube.force-ssl (the full `youtube` scope includes it). */
const COMMENT_READ_SCOPES = { any: [`${AUTH}/youtube.force-ssl`, `${AUTH}/youtube`, `${AUTH}/youtubepartner`] };
/** comments.insert: youtube.force-ssl only. */
const COMMENT_WRITE_SCOPES = { any: [`${AUTH}/youtube.force-ssl`] };

/** textDisplay in YouTube's default `html` format: escaped, line breaks as <br>. */
function asHtml(text: string): string {
  return escapeHtml(text).replace(/\n/g, '<br>');
}

function commentResource(c: { id: string; videoId: string; channelId: string; authorChannelId: string; authorName: string; text: string; publishedAt: Date; parentId?: string }, viewer: string, format: string | null) {
  return {
    kind: 'youtube#comment',
    id: c.id,
    snippet: {
      channelId: c.channelId,
      videoId: c.videoId,
      textDisplay: format === 'plainText' ? c.text : asHtml(c.text),
      // Served only to the comment's author, as YouTube does.
      ...(c.authorChannelId === viewer ? { textOriginal: c.text } : {}),
      ...(c.parentId ? { parentId: c.parentId } : {}),
      authorDisplayName: c.authorName,
      authorProfileImageUrl: `https://yt3.ggpht.test/${c.authorChannelId}`,
      authorChannelUrl: `http://www.youtube.com/channel/${c.authorChannelId}`,
      authorChannelId: { value: c.authorChannelId },
      canRate: true,
      viewerRating: 'none',
      likeCount: 0,
      publishedAt: c.publishedAt.toISOString(),
      updatedAt: c.publishedAt.toISOString(),
    },
  };
}

/**
 * commentThreads.list with one filter (allThreadsRelatedToChannelId, videoId or id), order time
 * (newest first) or relevance, 1 to 100 a page, `pageToken` from `nextPageToken`.
 */
function commentThreads(fake: YouTubeFake, req: FakeRequest, res: ServerResponse): void {
  const q = req.query;
  if (!(q.get('part') ?? '').split(',').includes('snippet')) return fail(res, 400, 'missingRequiredParameter', 'No part selected.');
  const filters = ['allThreadsRelatedToChannelId', 'videoId', 'id'].filter((f) => q.has(f));
  if (filters.length !== 1) return fail(res, 400, 'incompatibleParameters', 'Exactly one filter must be given.');
  const max = Number(q.get('maxResults') ?? 20);
  if (!Number.isInteger(max) || max < 1 || max > 100) return fail(res, 400, 'invalidParameter', 'maxResults must be between 1 and 100.');
  const format = q.get('textFormat');
  if (format !== null && format !== 'html' && format !== 'plainText') return fail(res, 400, 'invalidParameter', 'textFormat must be html or plainText.');
  const start = q.get('pageToken') ? Number(Buffer.from(q.get('pageToken')!, 'base64url').toString()) : 0;
  if (!Number.isInteger(start) || start < 0) return fail(res, 400, 'invalidPageToken', 'The page token is not valid.');
  const matching = fake.comments
    .filter((c) => (q.has('videoId') ? c.videoId === q.get('videoId') : q.has('id') ? q.get('id')!.split(',').includes(c.id) : c.channelId === q.get('allThreadsRelatedToChannelId')))
    .sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime());
  const page = matching.slice(start, start + max);
  const replies = (id: string) => fake.replies.filter((r) => r.target === id).length;
  const items = page.map((c) => ({
    kind: 'youtube#commentThread',
    id: c.id,
    snippet: { channelId: c.channelId, videoId: c.videoId, topLevelComment: commentResource(c, req.account!, format), canReply: true, totalReplyCount: replies(c.id), isPublic: true },
  }));
  const next = start + max < matching.length ? { nextPageToken: Buffer.from(String(start + max)).toString('base64url') } : {};
  json(res, 200, { kind: 'youtube#commentThreadListResponse', ...next, pageInfo: { totalResults: matching.length, resultsPerPage: max }, items });
}

/** comments.insert: a reply to a top-level comment the channel can see. */
function insertComment(fake: YouTubeFake, req: FakeRequest, res: ServerResponse): void {
  if (req.query.get('part') !== 'snippet' && req.query.get('part') !== 'id,snippet') return fail(res, 400, 'missingRequiredParameter', 'No part selected.');
  const snippet = req.json<{ snippet?: { parentId?: string; textOriginal?: string } }>().snippet ?? {};
  if (!snippet.parentId) return fail(res, 400, 'parentIdMissing', 'The comment must be linked to a parent comment.');
  const text = snippet.textOriginal ?? '';
  if (!text.trim()) return fail(res, 400, 'commentTextRequired', 'The comment resource must specify a value for snippet.textOriginal.');
  if (Array.from(text).length > COMMENT_MAX) return fail(res, 400, 'commentTextTooLong', 'The comment text is too long.');
  const parent = fake.comments.find((c) => c.id === snippet.parentId);
  if (!parent) return fail(res, 404, 'commentNotFound', 'The parent comment could not be found.');
  const reply = fake.recordReply({ id: `${parent.id}.${fake.newId('r')}`, channel: 'comment', target: parent.id, text, accountId: req.account! });
  const resource = commentResource({ ...parent, id: reply.id, authorChannelId: req.account!, authorName: fake.options.accountName ?? '', text, publishedAt: reply.createdAt, parentId: parent.id }, req.account!, null);
  fake.respond(res, 200, resource);
}

/** As channels.list serves them: counts as strings; a hidden subscriber count still reads 0. */
function channelStatistics(fake: YouTubeFake): Record<string, unknown> {
  const hidden = fake.followers === null;
  return { viewCount: '1200', subscriberCount: String(fake.followers ?? 0), hiddenSubscriberCount: hidden, videoCount: String(fake.posts.length) };
}

/** videos.list?part=statistics&id=…: at most 50 ids; unknown ids are simply missing from `items`. */
function videoStatistics(fake: YouTubeFake, req: FakeRequest, res: ServerResponse): void {
  const ids = (req.query.get('id') ?? '').split(',').filter(Boolean);
  if (req.query.get('part') !== 'statistics' || ids.length === 0) return fail(res, 400, 'missingRequiredParameter', 'No filter selected.');
  if (ids.length > 50) return fail(res, 400, 'invalidFilters', 'Too many ids: at most 50.');
  const items = ids
    .filter((id) => fake.metrics.has(id))
    .map((id) => ({ kind: 'youtube#video', id, statistics: Object.fromEntries(Object.entries(fake.metrics.get(id)!).map(([k, v]) => [k, String(v)])) }));
  json(res, 200, { kind: 'youtube#videoListResponse', pageInfo: { totalResults: items.length, resultsPerPage: items.length }, items });
}

/** search.list forMine: newest first, HTML-escaped snippets, descriptions shortened. */
function search(fake: YouTubeFake, req: FakeRequest, res: ServerResponse): void {
  const q = req.query;
  if (q.get('forMine') !== 'true' || q.get('type') !== 'video' || q.get('part') !== 'snippet') {
    return fail(res, 400, 'invalidSearchFilter', 'forMine requires type=video and part=snippet.');
  }
  const max = Math.min(Number(q.get('maxResults') ?? 5), 50);
  const items = fake.posts
    .filter((p) => p.accountId === req.account)
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
    .slice(0, max)
    .map((p) => ({
      kind: 'youtube#searchResult',
      id: { kind: 'youtube#video', videoId: p.id },
      snippet: {
        publishedAt: p.createdAt.toISOString(),
        channelId: p.accountId,
        title: escapeHtml(p.title ?? ''),
        description: escapeHtml(Array.from(p.text).slice(0, SEARCH_DESCRIPTION_CHARS).join('')),
        thumbnails: { default: { url: p.mediaUrls[0] } },
      },
    }));
  json(res, 200, { kind: 'youtube#searchListResponse', pageInfo: { totalResults: items.length, resultsPerPage: max }, items });
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** videos.insert, resumable: checks the metadata like YouTube and answers the session URI. */
function openSession(fake: YouTubeFake, req: FakeRequest, res: ServerResponse): void {
  const parts = (req.query.get('part') ?? '').split(',');
  if (req.query.get('uploadType') !== 'resumable' || !parts.includes('snippet') || !parts.includes('status')) {
    return fail(res, 400, 'invalidParameter', 'uploadType=resumable and part=snippet,status are required.');
  }
  const metadata = req.json<UploadSession['metadata']>();
  const problem = metadataProblem(metadata);
  if (problem) return fail(res, 400, problem.reason, problem.message);
  const contentType = String(req.headers['x-upload-content-type'] ?? '');
  const length = Number(req.headers['x-upload-content-length']);
  if (!contentType.startsWith('video/') || !Number.isInteger(length) || length <= 0) {
    return fail(res, 400, 'invalidVideoMetadata', 'X-Upload-Content-Type and X-Upload-Content-Length are required.');
  }
  const session: UploadSession = { id: fake.newId('upl_'), accountId: req.account!, metadata, contentType, length };
  fake.sessions.set(session.id, session);
  res.writeHead(200, { Location: `${fake.url}${UPLOAD_PATH}?uploadType=resumable&part=snippet,status&upload_id=${session.id}`, 'Content-Length': '0' });
  res.end();
}

function metadataProblem(metadata: UploadSession['metadata']): { reason: string; message: string } | null {
  const title = metadata.snippet?.title;
  const description = metadata.snippet?.description ?? '';
  if (typeof title !== 'string' || title.trim() === '') return { reason: 'invalidTitle', message: 'The video title is empty.' };
  if (Array.from(title).length > 100 || /[<>]/.test(title)) return { reason: 'invalidTitle', message: 'The video title is invalid.' };
  if (typeof description !== 'string' || Buffer.byteLength(description) > 5000 || /[<>]/.test(description)) {
    return { reason: 'invalidDescription', message: 'The video description is invalid.' };
  }
  if (!['public', 'private', 'unlisted'].includes(String(metadata.status?.privacyStatus))) {
    return { reason: 'invalidVideoMetadata', message: 'The privacy status is invalid.' };
  }
  return null;
}

/** The session URI: a status query (`Content-Range: bytes *\/N`) or the whole video in one PUT. */
function putUpload(fake: YouTubeFake, req: FakeRequest, res: ServerResponse): void {
  const session = fake.sessions.get(req.query.get('upload_id') ?? '');
  if (!session) return fail(res, 404, 'notFound', 'The upload session does not exist.');
  if (session.accountId !== req.account) return fail(res, 403, 'forbidden', 'The upload session belongs to another user.');
  if (/^bytes \*\/\d+$/.test(String(req.headers['content-range'] ?? ''))) {
    if (session.video) return json(res, 200, session.video);
    // Nothing received: "Resume Incomplete" without a Range header.
    res.writeHead(308, { 'Content-Length': '0' });
    res.end();
    return;
  }
  if (session.video) return json(res, 200, session.video);
  if (req.body.length !== session.length) return fail(res, 400, 'badContent', `Expected ${session.length} bytes, got ${req.body.length}.`);
  session.video = createVideo(fake, session, req.body.length);
  fake.respond(res, 201, session.video);
}

function createVideo(fake: YouTubeFake, session: UploadSession, bytes: number): FakeVideo {
  const id = fake.newId('yt').slice(-11);
  const snippet = session.metadata.snippet as { title: string; description?: string; categoryId?: string };
  const thumbnail = `https://i.ytimg.test/vi/${id}/default.jpg`;
  const rejected = fake.uploadStatus === 'rejected' || fake.uploadStatus === 'failed';
  const video: FakeVideo = {
    kind: 'youtube#video',
    id,
    snippet: {
      publishedAt: new Date().toISOString(),
      channelId: session.accountId,
      title: snippet.title,
      description: snippet.description ?? '',
      categoryId: snippet.categoryId ?? '22',
      thumbnails: { default: { url: thumbnail, width: 120, height: 90 } },
    },
    status: { uploadStatus: fake.uploadStatus, privacyStatus: String(session.metadata.status.privacyStatus), ...(rejected ? { rejectionReason: fake.rejectionReason } : {}) },
  };
  if (!rejected) {
    const extra = { bytes, contentType: session.contentType, privacyStatus: video.status.privacyStatus, categoryId: video.snippet.categoryId, madeForKids: session.metadata.status.selfDeclaredMadeForKids };
    fake.recordPost({ id, accountId: session.accountId, text: video.snippet.description, title: snippet.title, mediaUrls: [thumbnail], extra });
  }
  return video;
}
