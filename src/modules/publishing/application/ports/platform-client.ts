import type { PlatformCredentials } from '../../../../config/index.js';
import { mediaRefusal, type Platform } from '../../../../core/index.js';
import type { RemotePostMetrics } from './account-metrics.js';

/**
 * The contract's publish error codes (§8). `rate_limited` and `network_error` are retryable;
 * `not_connected`: the workspace's connection to the platform was removed before the post was due.
 */
export const PUBLISH_ERROR_CODES = ['token_expired', 'rate_limited', 'content_rejected', 'network_error', 'unconfirmed', 'not_connected', 'unknown_error'] as const;
export type PublishErrorCode = (typeof PUBLISH_ERROR_CODES)[number];

/**
 * Where a failure happened relative to the one irreversible call (the call that makes the post
 * public): `before` it nothing is public and a retry is safe; `unknown` means the irreversible
 * call was sent and its outcome is not known (timeout, reset, 5xx), so it must be reconciled,
 * never sent again blindly. A clear refusal of the irreversible call (4xx, 429) is `before`.
 */
export type FailurePoint = 'before' | 'unknown';

/** The one failure type every adapter throws from `publish`, `exchangeCode`, `refresh`, `listBoards`. */
export class PublishFailure extends Error {
  /**
   * The platform's id of this attempt once the irreversible call was accepted (TikTok's
   * `publish_id`): kept with the post so a reconciliation can ask about exactly this attempt.
   */
  handle?: string;

  constructor(
    readonly code: PublishErrorCode,
    message: string,
    readonly point: FailurePoint = 'before',
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'PublishFailure';
  }

  /** This failure, naming the attempt the platform accepted. */
  withHandle(handle: string): this {
    this.handle = handle;
    return this;
  }
}

export interface PlatformTokens {
  accessToken: string;
  /** Null when the platform issued none; a refresh never overwrites a stored token with null. */
  refreshToken: string | null;
  expiresAt: Date | null;
  scopes: string[];
}

export interface PlatformAccount {
  /** The platform's id of the account (Instagram business account id, TikTok open_id, X user id, YouTube channel id, Pinterest username). */
  id: string;
  name: string;
}

export interface ConnectedAccount extends PlatformTokens {
  account: PlatformAccount;
}

export interface PublishMedia {
  /** A public URL the platform can pull (Instagram, TikTok, Pinterest pull from URL). */
  url: string;
  contentType: string;
  kind: 'image' | 'video';
  /** A video's length when we know it; the media rules check it against the platform's bounds. */
  durationSeconds?: number;
  /** The bytes, for platforms that take an upload (X, YouTube). */
  read(): Promise<Buffer>;
}

export interface PublishRequest {
  /** Our scheduled post id; adapters may send it where a platform takes an idempotency hint. */
  postId: string;
  accessToken: string;
  account: PlatformAccount;
  /** single | carousel | story | video | reel | short (contract §6). */
  contentType: string;
  /** The full text to post: caption, hashtags and call to action already joined. */
  text: string;
  /** A short title where the platform wants one (YouTube, Pinterest). */
  title: string;
  media: PublishMedia[];
  /** Pinterest: the board to pin to. */
  boardId?: string | null;
}

/**
 * The media rules check every client (sandbox and live) makes before its first call: what the
 * platform would refuse for this content type fails here as content_rejected, before anything is sent.
 */
export function assertMediaAccepted(platform: Platform, request: Pick<PublishRequest, 'contentType' | 'media'>): void {
  const refusal = mediaRefusal(platform, request.contentType, request.media);
  if (refusal) throw new PublishFailure('content_rejected', refusal);
}

export interface PublishResult {
  remotePostId: string;
  remoteUrl: string | null;
  /** The media URLs as the platform serves them (or ours, where the platform gives none back). */
  mediaUrls: string[];
}

/** What a reconciliation looks for: the post's text and media, sent at or after `since`. */
export interface ReconcileQuery {
  accessToken: string;
  /** What kind of post was sent: some kinds (Instagram stories) cannot be found again. */
  contentType: string;
  account: PlatformAccount;
  text: string;
  title: string;
  since: Date;
  boardId?: string | null;
  /** Remote ids already recorded for other posts of this connection; never matched again. */
  knownRemoteIds: ReadonlySet<string>;
  /** The platform's id of the attempt, when the adapter named one (`PublishFailure.handle`). */
  handle: string | null;
}

/** What a metric read asks for: the account's followers and the metrics of these posts. */
export interface MetricsQuery {
  accessToken: string;
  account: PlatformAccount;
  remotePostIds: string[];
  /**
   * Awaited before every platform call of the read; it throws (a `rate_limited` PublishFailure)
   * to stop the read when the metrics' share of the platform's quota is spent.
   */
  beforeCall?: () => Promise<void>;
}

/** A metric read's answer; a post the platform no longer has is left out of `posts`. */
export interface MetricsReading {
  followers: number | null;
  posts: RemotePostMetrics[];
}

/** A reply the character sends: under a comment, or in a direct-message thread. */
export interface ReplyRequest {
  accessToken: string;
  account: PlatformAccount;
  channel: 'comment' | 'dm';
  /**
   * comment: the platform id of the comment answered (Instagram comment id, X tweet id, YouTube
   * top-level comment id). dm: the platform id of the person written to (Instagram-scoped user
   * id, X user id).
   */
  target: string;
  text: string;
  /** Our reply id (e.g. msg_...): sent where a platform takes an idempotency hint. */
  replyId: string;
}

export interface ReplyResult {
  remoteMessageId: string;
}

/** A comment read by polling (YouTube commentThreads; X mentions where a plan has no webhooks). */
export interface InboundComment {
  /** The platform's comment id. */
  remoteMessageId: string;
  /** The platform's id of the author (YouTube authorChannelId.value, X author_id). */
  authorId: string;
  authorName: string;
  text: string;
  createdAt: Date;
  /** The video / tweet commented on. */
  remotePostId: string | null;
}

export interface CommentsQuery {
  accessToken: string;
  account: PlatformAccount;
  /** Comments made after this instant; null: the latest page only. */
  since: Date | null;
  /** As for metric reads: awaited before every platform call, throws rate_limited when the reserve is spent. */
  beforeCall?: () => Promise<void>;
}

export interface Board {
  id: string;
  name: string;
  privacy: string;
}

export interface AuthorizeParams {
  state: string;
  redirectUri: string;
  /** S256 challenge when the adapter `supportsPkce`. */
  codeChallenge?: string;
}

/**
 * One social platform's API (contract §8). Adapters hold no per-user state: tokens come in with
 * each call. Every failure is a `PublishFailure` with one of the contract's codes.
 */
export interface PlatformClient {
  readonly platform: Platform;
  readonly supportsPkce: boolean;
  /** Scopes asked for at authorization. */
  readonly scopes: readonly string[];
  authorizeUrl(params: AuthorizeParams): string;
  exchangeCode(params: { code: string; redirectUri: string; codeVerifier?: string }): Promise<ConnectedAccount>;
  refresh(refreshToken: string): Promise<PlatformTokens>;
  /** Best effort: platforms without a revoke endpoint resolve at once. */
  revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void>;
  publish(request: PublishRequest): Promise<PublishResult>;
  /**
   * The post if the platform shows it was made, null if it shows it was not. Absent when the
   * platform can never tell; throws when it cannot tell this time (the post fails `unconfirmed`).
   */
  reconcile?(query: ReconcileQuery): Promise<PublishResult | null>;
  listBoards?(accessToken: string): Promise<Board[]>;
  /**
   * Followers and post metrics through the platform's API. Failures are classified as for
   * `publish` (token_expired, rate_limited with retryAfterMs, network_error, unknown_error).
   */
  readMetrics(query: MetricsQuery): Promise<MetricsReading>;
  /**
   * Sends a reply (comment or direct message), the irreversible call: failures are classified as
   * for `publish`, `point: 'unknown'` when the reply was sent and its outcome is not known.
   * Absent on platforms the engagement context does not answer on.
   */
  sendReply?(request: ReplyRequest): Promise<ReplyResult>;
  /** Comments on the account's posts made since `query.since`, newest first, for platforms read by polling. */
  readComments?(query: CommentsQuery): Promise<InboundComment[]>;
}

/** One live adapter's settings: the platform's credentials and addresses, and our time budgets. */
export interface PlatformClientOptions extends PlatformCredentials {
  timeoutMs: number;
  /** How often and how long to poll asynchronous processing (Instagram containers, TikTok, X video). */
  pollIntervalMs: number;
  pollTimeoutMs: number;
}
