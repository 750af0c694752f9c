import {
  assertMediaAccepted,
  PublishFailure,
  type AuthorizeParams,
  type Board,
  type ConnectedAccount,
  type MetricsQuery,
  type MetricsReading,
  type PlatformClient,
  type PlatformClientOptions,
  type PlatformTokens,
  type PublishRequest,
  type PublishResult,
  type ReconcileQuery,
} from '../../application/ports/platform-client.js';
import { readPinterestMetrics } from './pinterest-metrics.js';
import { basicAuth, consentUrl, cutToWeight, PlatformHttp, RECONCILE_SKEW_MS, tokenGrant, withQuery, type PlatformCall, type PlatformReply } from './platform-http.js';

const TITLE_LIMIT = 100;
const DESCRIPTION_LIMIT = 800;
/** A carousel Pin takes 2 to 5 images. */
const BOARD_PAGE_SIZE = 100;
/** Enough for any real account; a runaway bookmark chain must not loop forever. */
const BOARD_PAGES = 5;
/** Reconciliation reads up to this many Pins of the board, newest first. */
const RECONCILE_PAGE_SIZE = 100;
const RECONCILE_PAGES = 50;
/** Pinterest's error codes for "Authentication failed" (2) and "Authorization failed" (3). */
const AUTH_ERROR_CODES = new Set([2, 3]);

type ImageMap = Record<string, { url?: string } | undefined>;
interface PinMedia {
  media_type?: string;
  images?: ImageMap;
  items?: { images?: ImageMap }[];
}
interface PinAnswer {
  id?: string;
  title?: string | null;
  description?: string | null;
  created_at?: string;
  board_id?: string;
  media?: PinMedia;
}
interface Page<T> {
  items?: T[];
  bookmark?: string | null;
}

/**
 * Pinterest (API v5). A post is one Pin on a board: a single image or a 2–5 image carousel,
 * which Pinterest pulls from our public media URLs. `POST /pins` is the only publishing call,
 * so it is the irreversible one; there is nothing to upload or poll before it.
 */
export class PinterestClient implements PlatformClient {
  readonly platform = 'pinterest' as const;
  readonly supportsPkce = false;
  readonly scopes = ['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read'] as const;
  private readonly http: PlatformHttp;

  constructor(private readonly options: PlatformClientOptions) {
    this.http = new PlatformHttp('Pinterest', options);
  }

  authorizeUrl({ state, redirectUri }: AuthorizeParams): string {
    const params = { client_id: this.options.clientId, redirect_uri: redirectUri, response_type: 'code', scope: this.scopes.join(','), state };
    return consentUrl(this.options.authorizeUrl, params);
  }

  async exchangeCode(params: { code: string; redirectUri: string }): Promise<ConnectedAccount> {
    const tokens = await this.grant({ grant_type: 'authorization_code', code: params.code, redirect_uri: params.redirectUri }, null);
    const data = await this.read<{ username?: string }>(`${this.options.apiUrl}/user_account`, 'the account look-up', tokens.accessToken);
    if (!data.username) throw new PublishFailure('unknown_error', 'Pinterest did not say which account was connected.');
    // Pinterest's stable public handle is the username; the API takes no user id anywhere we call.
    return { ...tokens, account: { id: data.username, name: data.username } };
  }

  refresh(refreshToken: string): Promise<PlatformTokens> {
    return this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken }, refreshToken);
  }

  /** Pinterest has no token revocation endpoint: the user removes the app in their settings. */
  async revoke(): Promise<void> {}

  async listBoards(accessToken: string): Promise<Board[]> {
    const boards: Board[] = [];
    let bookmark: string | null | undefined;
    for (let page = 0; page < BOARD_PAGES; page++) {
      const url = withQuery(`${this.options.apiUrl}/boards`, { page_size: String(BOARD_PAGE_SIZE), bookmark: bookmark || undefined });
      const data = await this.read<Page<{ id: string; name: string; privacy?: string }>>(url, 'the boards', accessToken);
      for (const b of data.items ?? []) boards.push({ id: b.id, name: b.name, privacy: (b.privacy ?? 'public').toLowerCase() });
      bookmark = data.bookmark;
      if (!bookmark) break;
    }
    return boards;
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    const boardId = checkPublishable(request);
    let pin: PinAnswer;
    try {
      ({ data: pin } = await this.http.call<PinAnswer>(`${this.options.apiUrl}/pins`, {
        what: 'the Pin',
        method: 'POST',
        bearer: request.accessToken,
        json: pinBody(request, boardId),
        irreversible: true,
      }));
    } catch (err) {
      throw pinterestFailure(err, 'the board no longer exists; choose a default board');
    }
    if (!pin.id) throw new PublishFailure('unknown_error', 'Pinterest answered the Pin without its id.', 'unknown');
    return { remotePostId: pin.id, remoteUrl: pinUrl(pin.id), mediaUrls: servedUrls(pin.media) ?? request.media.map((m) => m.url) };
  }

  /** Looks through the board's newest Pins for one with the description (and title) we send. */
  /**
   * Looks for the Pin among the board's Pins made since the attempt, newest first, following the
   * bookmark until the pages reach back past `since` (bounded): a busy board buries a Pin fast.
   */
  async reconcile(query: ReconcileQuery): Promise<PublishResult | null> {
    if (!query.boardId) return null;
    const description = clip(query.text, DESCRIPTION_LIMIT);
    const title = clip(query.title, TITLE_LIMIT);
    const from = query.since.getTime() - RECONCILE_SKEW_MS;
    let bookmark: string | undefined;
    for (let page = 0; page < RECONCILE_PAGES; page++) {
      const data = await this.boardPins(query, bookmark);
      if (!data) return null;
      const items = data.items ?? [];
      const found = items.find(
        (p) => !!p.id && !query.knownRemoteIds.has(p.id) && (p.description ?? '') === description && (p.title ?? '') === title && createdAt(p) >= from,
      );
      if (found?.id) return { remotePostId: found.id, remoteUrl: pinUrl(found.id), mediaUrls: servedUrls(found.media) ?? [] };
      const oldest = items.length > 0 ? createdAt(items[items.length - 1]) : -Infinity;
      if (!data.bookmark || oldest < from) return null;
      bookmark = data.bookmark;
    }
    throw new PublishFailure('unconfirmed', `Pinterest shows more Pins since the attempt than we read (${RECONCILE_PAGES} pages).`);
  }

  /** One page of the board's Pins; null when the board is gone (it holds no Pin: the post was not made there). */
  private async boardPins(query: ReconcileQuery, bookmark: string | undefined): Promise<Page<PinAnswer> | null> {
    const url = withQuery(`${this.options.apiUrl}/boards/${encodeURIComponent(query.boardId!)}/pins`, { page_size: String(RECONCILE_PAGE_SIZE), bookmark });
    try {
      return await this.read<Page<PinAnswer>>(url, 'the board Pins', query.accessToken);
    } catch (err) {
      if (err instanceof PublishFailure && statusOf(err) === 404) return null;
      throw err;
    }
  }

  readMetrics(query: MetricsQuery): Promise<MetricsReading> {
    return readPinterestMetrics((url, call) => this.send(url, call), this.options.apiUrl, query);
  }

  /** One call with Pinterest's auth error codes read as token_expired. */
  private async send<T>(url: string, call: PlatformCall): Promise<PlatformReply<T>> {
    try {
      return await this.http.call<T>(url, call);
    } catch (err) {
      throw pinterestFailure(err);
    }
  }

  private async read<T>(url: string, what: string, accessToken: string): Promise<T> {
    try {
      return (await this.http.call<T>(url, { what, bearer: accessToken })).data;
    } catch (err) {
      throw pinterestFailure(err);
    }
  }

  /** Pinterest takes the client credentials on its token endpoint as Basic auth. */
  private async grant(form: Record<string, string>, previousRefresh: string | null): Promise<PlatformTokens> {
    const headers = { Authorization: basicAuth(this.options.clientId, this.options.clientSecret) };
    return tokenGrant(this.http, this.options.tokenUrl, form, previousRefresh, { headers, what: 'the token request' });
  }
}

/** Throws what Pinterest cannot take (the media rules table, then a board); answers the board to pin to. */
function checkPublishable(request: PublishRequest): string {
  assertMediaAccepted('pinterest', request);
  if (!request.boardId) throw new PublishFailure('content_rejected', 'Pinterest cannot take this post: it has no board; choose a default board.');
  return request.boardId;
}

function pinBody(request: PublishRequest, boardId: string): Record<string, unknown> {
  const title = clip(request.title, TITLE_LIMIT);
  const media_source =
    request.contentType === 'carousel'
      ? { source_type: 'multiple_image_urls', items: request.media.map((m) => ({ url: m.url })) }
      : { source_type: 'image_url', url: request.media[0].url };
  return { board_id: boardId, ...(title ? { title } : {}), description: clip(request.text, DESCRIPTION_LIMIT), media_source };
}

/**
 * Pinterest's own image URLs, largest first ('originals', else '1200x'); undefined when the
 * answer has none for some image, so the caller falls back to ours.
 */
function servedUrls(media: PinMedia | undefined): string[] | undefined {
  const maps = media?.items?.length ? media.items.map((i) => i.images) : [media?.images];
  const urls = maps.map((images) => images?.originals?.url ?? images?.['1200x']?.url);
  return urls.length > 0 && urls.every((u): u is string => !!u) ? urls : undefined;
}

function pinUrl(id: string): string {
  return `https://www.pinterest.com/pin/${encodeURIComponent(id)}/`;
}

/** Pinterest writes `created_at` in UTC without a zone ("2024-05-01T10:00:00"): read it as UTC. */
function createdAt(pin: PinAnswer): number {
  if (!pin.created_at) return Number.POSITIVE_INFINITY;
  const hasZone = /(Z|[+-]\d\d:?\d\d)$/.test(pin.created_at);
  return Date.parse(hasZone ? pin.created_at : `${pin.created_at}Z`);
}

/**
 * Fits `text` in `limit` UTF-16 units (the stricter count) by cutting at the last word boundary
 * and adding "…". Reconciliation clips the same way, so it compares what was sent.
 */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // One unit is kept for the ellipsis; a character weighs its UTF-16 length, so no pair is split.
  const cut = cutToWeight(text, limit - 1, (char) => char.length);
  const boundary = cut.search(/\s+\S*$/);
  return `${(boundary > 0 ? cut.slice(0, boundary) : cut).trimEnd()}…`;
}

function statusOf(err: PublishFailure): number | undefined {
  const status = /answered (\d{3}) to/.exec(err.message)?.[1];
  return status ? Number(status) : undefined;
}

/**
 * Pinterest's refusals: an auth error code (2, 3) means the user must connect again, whatever
 * the HTTP status; a 404 on publish is the board being gone (`notFound` says so).
 */
function pinterestFailure(err: unknown, notFound?: string): Error {
  if (!(err instanceof PublishFailure) || err.point !== 'before' || err.code === 'token_expired') return err as Error;
  const code = Number(/"code"\s*:\s*(\d+)/.exec(err.message)?.[1]);
  if (AUTH_ERROR_CODES.has(code)) return new PublishFailure('token_expired', err.message);
  if (notFound && statusOf(err) === 404) return new PublishFailure('content_rejected', `Pinterest: ${notFound}. (${err.message})`);
  return err;
}
