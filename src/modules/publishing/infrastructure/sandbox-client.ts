import { createHash, randomBytes } from 'node:crypto';
import type { Platform } from '../../../core/index.js';
import type { PostMetrics } from '../application/ports/account-metrics.js';
import {
  assertMediaAccepted, PublishFailure, type AuthorizeParams, type Board, type ConnectedAccount, type InboundComment, type MetricsQuery, type MetricsReading, type PlatformClient, type PlatformTokens,
  type PublishRequest, type PublishResult, type ReplyRequest, type ReplyResult,
} from '../application/ports/platform-client.js';
import { assertReplyAccepted } from './platforms/reply-rules.js';

const TOKEN_LIFETIME_MS = 60 * 24 * 3600_000;
const SANDBOX_BOARDS: Board[] = [
  { id: 'sandbox-board-1', name: 'Inspiration', privacy: 'PUBLIC' },
  { id: 'sandbox-board-2', name: 'Outfits', privacy: 'PUBLIC' },
];

const token = (kind: string): string => `sandbox_${kind}_${randomBytes(16).toString('hex')}`;

/**
 * A platform without client credentials (contract §8): consent is a built-in route that returns
 * straight to the callback, and a publish records the post locally with a `sandbox_` remote id.
 * The whole flow works on a fresh machine, offline.
 */
export class SandboxClient implements PlatformClient {
  readonly supportsPkce = true;
  readonly scopes = ['sandbox'];
  readonly listBoards?: (accessToken: string) => Promise<Board[]>;

  constructor(
    readonly platform: Platform,
    /** The service's own consent route for this platform. */
    private readonly consentUrl: string,
    boards: boolean,
  ) {
    if (boards) this.listBoards = () => Promise.resolve(SANDBOX_BOARDS);
  }

  authorizeUrl(params: AuthorizeParams): string {
    const url = new URL(this.consentUrl);
    url.searchParams.set('state', params.state);
    return url.toString();
  }

  exchangeCode(params: { code: string }): Promise<ConnectedAccount> {
    if (!params.code.startsWith('sandbox_')) return Promise.reject(new PublishFailure('token_expired', 'The sandbox consent code is not valid.'));
    return Promise.resolve({ ...this.tokens(), account: { id: `sandbox-${this.platform}`, name: `Sandbox ${this.platform} account` } });
  }

  refresh(refreshToken: string): Promise<PlatformTokens> {
    if (!refreshToken.startsWith('sandbox_')) return Promise.reject(new PublishFailure('token_expired', 'The sandbox refresh token is not valid.'));
    return Promise.resolve(this.tokens());
  }

  revoke(): Promise<void> {
    return Promise.resolve();
  }

  /** Refuses what the real platform would (the media rules table), then records the post. */
  publish(request: PublishRequest): Promise<PublishResult> {
    return new Promise((resolve) => {
      assertMediaAccepted(this.platform, request);
      resolve({ remotePostId: token('post'), remoteUrl: null, mediaUrls: request.media.map((m) => m.url) });
    });
  }

  /** Nothing leaves the service in sandbox mode: an attempt that did not record its post made none. */
  reconcile(): Promise<PublishResult | null> {
    return Promise.resolve(null);
  }

  /** Simulated numbers: the same post on the same day always reads the same (see `simulatedMetrics`). */
  readMetrics(query: MetricsQuery, now = new Date()): Promise<MetricsReading> {
    const day = now.toISOString().slice(0, 10);
    return Promise.resolve({
      followers: simulatedFollowers(query.account.id, day),
      posts: query.remotePostIds.map((remotePostId) => ({ remotePostId, metrics: simulatedMetrics(remotePostId, day) })),
    });
  }

  /**
   * Refuses what the real platform would (the reply rules: channel and length), then records the
   * reply with a `sandbox_` id derived from our reply id, so sending the same reply again names the
   * same message, as the one reply it is.
   */
  sendReply(request: ReplyRequest): Promise<ReplyResult> {
    return new Promise((resolve) => {
      assertReplyAccepted(this.platform, request);
      const digest = createHash('sha256').update(`${this.platform}:${request.channel}:${request.target}:${request.replyId}`).digest('hex');
      resolve({ remoteMessageId: `sandbox_${request.channel === 'dm' ? 'dm' : 'reply'}_${digest.slice(0, 32)}` });
    });
  }

  /** Nobody comments on a sandbox account: there is nothing to read offline. */
  readComments(): Promise<InboundComment[]> {
    return Promise.resolve([]);
  }

  private tokens(): PlatformTokens {
    return { accessToken: token('at'), refreshToken: token('rt'), expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS), scopes: this.scopes.slice() };
  }
}

/** A stream of numbers in [0, 1) seeded by `seed`: the same seed always gives the same stream. */
function seeded(seed: string): () => number {
  const digest = createHash('sha256').update(seed).digest();
  let at = 0;
  return () => {
    const n = digest.readUInt32BE(at % 28);
    at += 4;
    return n / 0x1_0000_0000;
  };
}

const EPOCH_DAY = Date.parse('2020-01-01T00:00:00Z') / 86_400_000;

/** Days since 2020 (at least 1), so numbers grow from one day to the next like a real account's. */
function dayNumber(day: string): number {
  return Math.max(1, Math.floor(Date.parse(`${day}T00:00:00Z`) / 86_400_000 - EPOCH_DAY));
}

/**
 * A sandbox post's metrics on `day` (YYYY-MM-DD): deterministic in the post id and the day, and
 * never lower than the day before (a post's counts only grow), so charts over days look real.
 */
export function simulatedMetrics(remotePostId: string, day: string): PostMetrics {
  const rnd = seeded(`metrics:${remotePostId}`);
  const reach = 200 + Math.floor(rnd() * 4800);
  // Growth flattens: most of a post's reach comes in its first days.
  const age = dayNumber(day);
  const grown = Math.floor(reach * (1 + Math.log(age) / 4));
  const share = (low: number, span: number) => Math.floor(grown * (low + rnd() * span));
  return { impressions: grown, views: share(0.6, 0.3), likes: share(0.03, 0.07), comments: share(0.002, 0.01), shares: share(0.001, 0.01), saves: share(0.002, 0.02) };
}

/** A sandbox account's followers on `day`: deterministic, and growing a little each day. */
export function simulatedFollowers(accountId: string, day: string): number {
  const rnd = seeded(`followers:${accountId}`);
  return 500 + Math.floor(rnd() * 9500) + dayNumber(day) * (1 + Math.floor(rnd() * 5));
}
