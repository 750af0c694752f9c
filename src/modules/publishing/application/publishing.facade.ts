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
import { PublishFailure, type InboundComment, type MetricsReading, type PlatformAccount, type ReplyRequest, type ReplyResult } from './ports/platform-client.js';
import { TokenKeeper } from './token-keeper.js';

/** A reply as another context asks for it; the connection supplies the token and the account. */
export type ReplyToSend = Pick<ReplyRequest, 'channel' | 'target' | 'text' | 'replyId'>;

/** A read's token and, for live connections, the quota reserve's check before each call. */
type ReserveRead<T> = (accessToken: string, beforeCall: (() => Promise<void>) | undefined) => Promise<T>;

/**
 * What other contexts may ask of publishing: the analytics context reads metrics through the
 * workspace's connections (tokens, refresh and a broken connection stay here) and lists the
 * published posts and connections it syncs; the engagement context sends replies and reads
 * comments through them, and finds the workspaces and characters a webhook delivery concerns.
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
   * The workspaces connected to this platform account, for a webhook delivery that names only the
   * account (Instagram `entry.id`, X `for_user_id`). Several workspaces may connect the same
   * account: each gets the delivery.
   */
  workspacesOfAccount(platform: Platform, accountId: string): Promise<ConnectionRef[]> {
    return this.connections.byAccount(this.ds.manager, platform, accountId);
  }

  /**
   * Sends a reply through the workspace's connection. A token the platform refuses before the
   * reply went out is renewed once and the reply sent again, as a publish does. Throws
   * PublishFailure: `not_connected` without a usable connection, `content_rejected` where the
   * platform takes no such reply, else as the adapter classified it (`point: 'unknown'`: the reply
   * may have gone out, never send it again blindly).
   */
  async sendReply(workspaceId: string, platform: Platform, reply: ReplyToSend): Promise<ReplyResult> {
    const client = this.clients.get(platform);
    if (!client.sendReply) throw new PublishFailure('content_rejected', `Replies cannot be sent on ${platform}.`);
    const connection = await this.keeper.usable(workspaceId, platform);
    const request: ReplyRequest = { ...reply, accessToken: connection.accessToken, account: accountOf(connection) };
    try {
      return await client.sendReply(request);
    } catch (err) {
      if (!(err instanceof PublishFailure) || err.code !== 'token_expired' || err.point !== 'before') throw err;
      const renewed = await this.keeper.usable(workspaceId, platform, request.accessToken);
      return client.sendReply({ ...request, accessToken: renewed.accessToken });
    }
  }

  /**
   * Comments on the account's posts since `since` (newest first), read by polling within the
   * metric reads' quota reserve. [] for sandbox connections (nothing to read offline) and for
   * platforms whose comments arrive by webhook. Throws PublishFailure (`rate_limited` with
   * `retryAfterMs` when the reserve is spent or the platform answered 429, `not_connected`, ...).
   */
  async readComments(workspaceId: string, platform: Platform, since: Date | null): Promise<InboundComment[]> {
    const client = this.clients.get(platform);
    if (!client.readComments) return [];
    const connection = await this.keeper.usable(workspaceId, platform);
    if (connection.mode === 'sandbox') return [];
    return this.withinReserve(workspaceId, platform, connection, false, (accessToken, beforeCall) =>
      client.readComments!({ accessToken, account: accountOf(connection), since, beforeCall }),
    );
  }

  /** The character that published this remote post through the workspace, or null (not one of ours). */
  characterOfRemotePost(workspaceId: string, platform: Platform, remotePostId: string): Promise<string | null> {
    return this.posts.characterOfRemotePost(this.ds.manager, workspaceId, platform, remotePostId);
  }

  private read(workspaceId: string, platform: Platform, connection: UsableConnection, remotePostIds: string[], simulated: boolean): Promise<MetricsReading> {
    const client = this.clients.get(platform);
    return this.withinReserve(workspaceId, platform, connection, simulated, (accessToken, beforeCall) =>
      client.readMetrics({ accessToken, account: accountOf(connection), remotePostIds, beforeCall }),
    );
  }

  /**
   * One read, through the quota reserve for live connections. A token the platform refuses is
   * renewed once and the read sent again, as a publish does; a 429 pauses reserve reads only.
   */
  private async withinReserve<T>(workspaceId: string, platform: Platform, connection: UsableConnection, simulated: boolean, run: ReserveRead<T>): Promise<T> {
    let reserveRefused = false;
    // The platform's quota is the account's; a connection that never learnt its account id stands for it.
    const quotaHolder = connection.accountId ?? `connection:${connection.id}`;
    const beforeCall = simulated ? undefined : () => this.budget.spend(platform, quotaHolder).catch((err: unknown) => {
      reserveRefused = true;
      throw err;
    });
    try {
      try {
        return await run(connection.accessToken, beforeCall);
      } catch (err) {
        if (!(err instanceof PublishFailure) || err.code !== 'token_expired') throw err;
        const renewed = await this.keeper.usable(workspaceId, platform, connection.accessToken);
        return await run(renewed.accessToken, beforeCall);
      }
    } catch (err) {
      if (err instanceof PublishFailure && err.code === 'rate_limited' && !reserveRefused) await this.budget.pause(platform, quotaHolder, err.retryAfterMs);
      throw err;
    }
  }
}

function accountOf(connection: UsableConnection): PlatformAccount {
  return { id: connection.accountId ?? '', name: connection.accountName ?? '' };
}

function metricsError(err: unknown, platform: Platform): Error {
  if (!(err instanceof PublishFailure)) return err as Error;
  const details = { platform, code: err.code, ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}) };
  if (err.code === 'rate_limited') return new AppError('rate_limited', err.message, details);
  if (err.code === 'not_connected') return new AppError('integration_not_connected', err.message, details);
  return new AppError('upstream_failed', err.message, details);
}
