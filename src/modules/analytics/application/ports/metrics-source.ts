import type { Platform } from '../../../../core/index.js';
import type { AccountMetrics, ConnectionRef, PublishedPost } from '../../../publishing/index.js';

/**
 * What analytics needs from the platforms, served by publishing (which owns the connections, the
 * tokens and every platform call). Bound to `PublishingFacade` in the module.
 */
export abstract class MetricsSource {
  /**
   * The account's followers and the metrics of the posts asked about. Throws `AppError`:
   * `rate_limited` (details `retryAfterMs`), `token_expired`, `not_connected`, `upstream_failed`.
   */
  abstract readAccountMetrics(workspaceId: string, platform: Platform, remotePostIds: string[]): Promise<AccountMetrics>;
  abstract publishedPosts(workspaceId: string, opts: { platform?: Platform; since?: Date }): Promise<PublishedPost[]>;
  /** Every workspace's live connections: what the scheduler syncs. */
  abstract liveConnections(): Promise<ConnectionRef[]>;
  abstract connectionsOf(workspaceId: string): Promise<ConnectionRef[]>;
}
