import type { ServerResponse } from 'node:http';
import { FakePlatform, json, type FakePlatformOptions, type FakeRequest, type IssuedToken, type RecordedPost } from './fake-platform.js';

/**
 * A fake Pinterest API v5 on one server: the OAuth consent page (`/oauth/`), the token endpoint
 * (Basic client auth, no PKCE, continuous refresh), `GET /v5/user_account`, the boards list with
 * bookmark paging, `POST /v5/pins` (the irreversible call) and a board's Pins for
 * reconciliation. Errors come in Pinterest's `{code, message}` shape.
 */

/** Suffixes of `fake.url` for the service's PINTEREST_* settings. */
export const PINTEREST_PATHS = { apiUrl: '/v5', authorizeUrl: '/oauth/', tokenUrl: '/v5/oauth/token', uploadUrl: '/v5' } as const;

export interface PinterestBoard {
  id: string;
  name: string;
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET';
  owner: string;
}

/** The Pinterest fake: a FakePlatform that also has the accounts' boards (mutable by tests). */
export class PinterestFake extends FakePlatform {
  readonly boards: PinterestBoard[] = [];
  /** Board listings leave out Pins younger than this, as a platform that shows new posts late. */
  listingDelayMs = 0;
  private pinSeq = 813_744_226_420_000_000n;

  nextPinId(): string {
    this.pinSeq += 1n;
    return this.pinSeq.toString();
  }

  /** Where the fake "serves" a Pin's image, as Pinterest serves from i.pinimg.com. */
  imageUrl(pinId: string, index: number, size = '1200x'): string {
    return `${this.url}/pinimg/${size}/${pinId}_${index}.jpg`;
  }
}

export async function startPinterestFake(options: Partial<FakePlatformOptions> = {}): Promise<PinterestFake> {
  const fake = new PinterestFake({ clientId: 'pinterest-client', clientSecret: 'pinterest-secret', accountId: 'lunagrows', accountName: 'lunagrows', ...options });
  const owner = fake.options.accountId!;
  fake.boards.push({ id: '1001', name: 'Balcony garden', privacy: 'PUBLIC', owner }, { id: '1002', name: 'Recipes', privacy: 'SECRET', owner });
  fake.refuseBody = (res, message) => error(res, 400, 1, `Invalid request body: ${message}`);
  fake.refuseScope = (res) => error(res, 401, 3, 'Authorization failed.');
  mountOAuth(fake);
  fake.route('GET', '/v5/user_account', (req, res) =>
    json(res, 200, {
      account_type: 'BUSINESS', id: '549755885175', username: req.account, profile_image: `${fake.url}/avatar.jpg`, website_url: '', board_count: fake.boards.length,
      ...(fake.followers === null ? {} : { follower_count: fake.followers, following_count: 3, pin_count: fake.posts.length, monthly_views: 1000 }),
    }),
  { scopes: { all: ['user_accounts:read'] } });
  // The scopes Pinterest's v5 reference lists per operation.
  fake.route('GET', '/v5/pins/:pinId/analytics', (req, res) => pinAnalytics(fake, req, res), { tag: 'metrics', scopes: { all: ['pins:read', 'user_accounts:read'] } });
  fake.route('GET', '/v5/boards', (req, res) => listBoards(fake, req, res), { scopes: { all: ['boards:read'] } });
  fake.route('POST', '/v5/pins', (req, res) => createPin(fake, req, res), { tag: 'publish', scopes: { all: ['boards:read', 'pins:read', 'pins:write'] } });
  fake.route('GET', '/v5/boards/:boardId/pins', (req, res) => boardPins(fake, req, res), { scopes: { all: ['boards:read', 'pins:read'] } });
  return fake.listen();
}

function error(res: ServerResponse, status: number, code: number, message: string): void {
  json(res, status, { code, message });
}

function mountOAuth(fake: PinterestFake): void {
  fake.route('GET', PINTEREST_PATHS.authorizeUrl, (req, res) => {
    const q = req.query;
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== fake.options.clientId || !redirectUri || q.get('response_type') !== 'code' || !q.get('scope')) {
      return error(res, 400, 1, 'Invalid parameters.');
    }
    const code = fake.issueCode(redirectUri, undefined, q.get('scope')!.split(','));
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.get('state') ?? '');
    res.writeHead(302, { Location: target.toString() });
    res.end();
  }, { auth: false, tag: 'oauth' });
  fake.route('POST', PINTEREST_PATHS.tokenUrl, (req, res) => token(fake, req, res), { auth: false, tag: 'oauth' });
}

function token(fake: PinterestFake, req: FakeRequest, res: ServerResponse): void {
  const form = req.form();
  // Pinterest takes client credentials only as Basic auth.
  if (!req.headers.authorization?.startsWith('Basic ') || !fake.clientAuthenticated(req, form)) return error(res, 401, 2, 'Authentication failed.');
  const grantType = form.get('grant_type');
  let issued: IssuedToken | { error: string };
  if (grantType === 'authorization_code') issued = fake.redeemCode(form.get('code'), form.get('redirect_uri'), null);
  else if (grantType === 'refresh_token') issued = fake.redeemRefresh(form.get('refresh_token'));
  else return error(res, 400, 1, 'Invalid grant_type.');
  if ('error' in issued) return error(res, 400, 1, 'Invalid authorization code or refresh token.');
  json(res, 200, {
    access_token: issued.accessToken,
    refresh_token: issued.refreshToken,
    response_type: grantType,
    token_type: 'bearer',
    expires_in: 2_592_000,
    refresh_token_expires_in: 31_536_000,
    scope: issued.scopes.join(','),
  });
}

function pageSize(req: FakeRequest): number | null {
  const size = Number(req.query.get('page_size') ?? 25);
  return Number.isInteger(size) && size >= 1 && size <= 250 ? size : null;
}

function listBoards(fake: PinterestFake, req: FakeRequest, res: ServerResponse): void {
  const size = pageSize(req);
  if (!size) return error(res, 400, 1, 'Invalid page_size.');
  const offset = Number(Buffer.from(req.query.get('bookmark') ?? '', 'base64url').toString() || 0);
  const mine = fake.boards.filter((b) => b.owner === req.account);
  const page = mine.slice(offset, offset + size);
  const bookmark = offset + size < mine.length ? Buffer.from(String(offset + size)).toString('base64url') : null;
  json(res, 200, { items: page.map((b) => ({ id: b.id, name: b.name, description: '', privacy: b.privacy, owner: { username: b.owner } })), bookmark });
}

interface PinBody {
  board_id?: string;
  title?: string;
  description?: string;
  alt_text?: string;
  media_source?: { source_type?: string; url?: string; items?: { url?: string }[] };
}

/** The image URLs a valid media_source names, or why it is invalid. */
function sourceUrls(source: PinBody['media_source']): string[] | string {
  const isUrl = (u: unknown): u is string => typeof u === 'string' && /^https?:\/\//.test(u);
  if (source?.source_type === 'image_url') return isUrl(source.url) ? [source.url] : 'media_source.url must be an image URL.';
  if (source?.source_type === 'multiple_image_urls') {
    const urls = (source.items ?? []).map((i) => i.url);
    if (urls.length < 2 || urls.length > 5) return 'media_source.items must hold 2 to 5 images.';
    return urls.every(isUrl) ? urls : 'media_source.items[].url must be an image URL.';
  }
  return 'media_source.source_type is invalid.';
}

function pinMedia(fake: PinterestFake, post: RecordedPost): Record<string, unknown> {
  const images = (i: number) => ({ '600x': { width: 600, height: 750, url: fake.imageUrl(post.id, i, '600x') }, '1200x': { width: 1200, height: 1500, url: post.mediaUrls[i] } });
  if (post.mediaUrls.length === 1) return { media_type: 'image', images: images(0) };
  return { media_type: 'multiple_images', items: post.mediaUrls.map((_u, i) => ({ item_type: 'image', images: images(i) })) };
}

function pinJson(fake: PinterestFake, post: RecordedPost): Record<string, unknown> {
  return {
    id: post.id,
    // Pinterest writes UTC without a zone designator.
    created_at: post.createdAt.toISOString().slice(0, 19),
    link: null,
    title: post.title ?? '',
    description: post.text,
    alt_text: post.extra.altText ?? null,
    board_id: post.boardId,
    board_section_id: null,
    board_owner: { username: post.accountId },
    media: pinMedia(fake, post),
  };
}

function createPin(fake: PinterestFake, req: FakeRequest, res: ServerResponse): void {
  const body = req.json<PinBody>();
  if (!body.board_id) return error(res, 400, 1, 'Invalid request body: board_id is required.');
  if (!fake.boards.some((b) => b.id === body.board_id && b.owner === req.account)) return error(res, 404, 2900, 'Board not found.');
  if ((body.title ?? '').length > 100) return error(res, 400, 1, 'Invalid request body: title is longer than 100 characters.');
  if ((body.description ?? '').length > 800) return error(res, 400, 1, 'Invalid request body: description is longer than 800 characters.');
  const urls = sourceUrls(body.media_source);
  if (typeof urls === 'string') return error(res, 400, 1, `Invalid request body: ${urls}`);
  const id = fake.nextPinId();
  fake.fetchMedia(urls);
  const post = fake.recordPost({
    id,
    accountId: req.account!,
    text: body.description ?? '',
    title: body.title,
    boardId: body.board_id,
    mediaUrls: urls.map((_u, i) => fake.imageUrl(id, i)),
    extra: { sourceType: body.media_source!.source_type, sourceUrls: urls, altText: body.alt_text },
  });
  fake.respond(res, 201, pinJson(fake, post));
}

function boardPins(fake: PinterestFake, req: FakeRequest, res: ServerResponse): void {
  const size = pageSize(req);
  if (!size) return error(res, 400, 1, 'Invalid page_size.');
  if (!fake.boards.some((b) => b.id === req.params.boardId && b.owner === req.account)) return error(res, 404, 2900, 'Board not found.');
  // Newest first, paged like Pinterest: the bookmark is where the next page starts.
  const shownBefore = Date.now() - fake.listingDelayMs;
  const all = fake.posts.filter((p) => p.boardId === req.params.boardId && p.createdAt.getTime() <= shownBefore).reverse();
  const start = Number(req.query.get('bookmark') ?? '0') || 0;
  const pins = all.slice(start, start + size);
  const next = start + size < all.length ? String(start + size) : null;
  json(res, 200, { items: pins.map((p) => pinJson(fake, p)), bookmark: next });
}

/** `GET /v5/pins/{id}/analytics`: the Pin's numbers as the range's summary; 404 for an unknown Pin. */
function pinAnalytics(fake: PinterestFake, req: FakeRequest, res: ServerResponse): void {
  const q = req.query;
  const start = Date.parse(q.get('start_date') ?? '');
  const end = Date.parse(q.get('end_date') ?? '');
  const types = (q.get('metric_types') ?? '').split(',').filter(Boolean);
  if (Number.isNaN(start) || Number.isNaN(end) || end < start || types.length === 0) return error(res, 400, 1, 'Invalid parameters.');
  if (end - start > 89 * 86_400_000) return error(res, 400, 1, 'The date range may not exceed 90 days.');
  const metrics = fake.metrics.get(req.params.pinId);
  if (!metrics) return error(res, 404, 50, 'Pin not found.');
  const summary = Object.fromEntries(types.filter((t) => t in metrics).map((t) => [t, metrics[t]]));
  json(res, 200, { all: { lifetime_metrics: summary, summary_metrics: summary, daily_metrics: [] } });
}
