import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Platform } from '../../../core/index.js';
import type { UsableConnection } from '../domain/connection.js';
import { ConnectionsRepository } from '../infrastructure/connections.repository.js';
import { ScheduledPostsRepository } from '../infrastructure/scheduled-posts.repository.js';
import { MetricsBudget } from './metrics-budget.js';
import { PlatformClients } from './platform-clients.js';
import type { AccountMetrics, ConnectionRef, PublishedPost } from './ports/account-metrics.js';
import { PublishFailure, type MetricsQuery, type MetricsReading } from './ports/platform-client.js';
import { TokenKeeper } from './token-keeper.js';

/**
 * What other contexts may ask of publishing: the analytics context reads metrics through the
 * workspace's connections (tokens, refresh and a broken connection stay here) and lists the
 * published posts and connections it syncs.
 */
@Injectable()
export class PublishingFacade {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly connections: ConnectionsRepository,
    private readonly posts: ScheduledPostsRepository,
    private readonly clients: PlatformClients,
    private readonly keeper: TokenKeeper,
    private readonly budget: MetricsBudget,
  ) {}

  /**
   * The account's followers and these posts' metrics, read now. Throws AppError whose
   * `details.code` is a publish error code: `rate_limited` (429, `details.retryAfterMs`),
   * `integration_not_connected` (`not_connected`), else `upstream_failed` (`token_expired` once the
   * connection is marked as a failed publish marks it, `network_error`, `unknown_error`).
   */
  async readAccountMetrics(workspaceId: string, platform: Platform, remotePostIds: string[]): Promise<AccountMetrics> {
    try {
      const connection = await this.keeper.usable(workspaceId, platform);
      const simulated = connection.mode === 'sandbox';
      const reading = await this.read(workspaceId, platform, connection, remotePostIds, simulated);
      return { platform, accountId: connection.accountId ?? '', followers: reading.followers, posts: reading.posts, simulated, readAt: new Date() };
    } catch (err) {
      throw metricsError(err, platform);
    }
  }

  async publishedPosts(workspaceId: string, opts: { platform?: Platform; since?: Date } = {}): Promise<PublishedPost[]> {
    const posts = await this.posts.published(this.ds.manager, workspaceId, opts);
    return posts.map((p) => ({
      scheduledPostId: p.id,
      contentId: p.contentId,
      characterId: p.characterId,
      platform: p.platformKey,
      remotePostId: p.remotePostId!,
      remoteUrl: p.remoteUrl,
      publishedAt: p.publishedAt!,
    }));
  }

  /** Every workspace's connected accounts, for the analytics scheduler. */
  liveConnections(): Promise<ConnectionRef[]> {
    return this.connections.connectedAccounts(this.ds.manager, null);
  }

  connectionsOf(workspaceId: string): Promise<ConnectionRef[]> {
    return this.connections.connectedAccounts(this.ds.manager, workspaceId);
  }

  /**
   * One read, through the quota reserve for live connections. A token the platform refuses is
   * renewed once and the read sent again, as a publish does; a 429 pauses metric reads only.
   */
  private async read(workspaceId: string, platform: Platform, connection: UsableConnection, remotePostIds: string[], simulated: boolean): Promise<MetricsReading> {
    const client = this.clients.get(platform);
    let reserveRefused = false;
    const accountId = connection.accountId ?? '';
    // The platform's quota is the account's; a connection that never learnt its account id stands for it.
    const quotaHolder = connection.accountId ?? `connection:${connection.id}`;
    const beforeCall = simulated ? undefined : () => this.budget.spend(platform, quotaHolder).catch((err: unknown) => {
      reserveRefused = true;
      throw err;
    });
    const query: MetricsQuery = { accessToken: connection.accessToken, account: { id: accountId, name: connection.accountName ?? '' }, remotePostIds, beforeCall };
    try {
      try {
        return await client.readMetrics(query);
      } catch (err) {
        if (!(err instanceof PublishFailure) || err.code !== 'token_expired') throw err;
        const renewed = await this.keeper.usable(workspaceId, platform, query.accessToken);
        return await client.readMetrics({ ...query, accessToken: renewed.accessToken });
      }
    } catch (err) {
      if (err instanceof PublishFailure && err.code === 'rate_limited' && !reserveRefused) await this.budget.pause(platform, quotaHolder, err.retryAfterMs);
      throw err;
    }
  }
}

function metricsError(err: unknown, platform: Platform): Error {
  if (!(err instanceof PublishFailure)) return err as Error;
  const details = { platform, code: err.code, ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}) };
  if (err.code === 'rate_limited') return new AppError('rate_limited', err.message, details);
  if (err.code === 'not_connected') return new AppError('integration_not_connected', err.message, details);
  return new AppError('upstream_failed', err.message, details);
}
