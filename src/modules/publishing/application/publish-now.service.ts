import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId, type Caller } from '../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { newClaimId, type ScheduledPost } from '../domain/scheduled-post.js';
import { ScheduledPostsRepository } from '../infrastructure/scheduled-posts.repository.js';
import { ConnectionsService } from './connections.service.js';
import { PostEvents, toScheduledPostBody } from './post-events.js';
import { Publisher } from './publisher.js';
import { compatiblePlatform, ScheduleService } from './schedule.service.js';

type Requester = Pick<Caller, 'workspaceId' | 'userId'>;

export interface PublishOutcome {
  post: ScheduledPost;
  result: { remotePostId: string; mediaUrls: string[] };
}

/**
 * Publishing at once, inside the request: `POST /schedule/{id}/publish-now` and the public API's
 * `POST /public/publish`. The post is claimed like the dispatcher claims it, so a post can never
 * be sent by both.
 */
@Injectable()
export class PublishNowService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly posts: ScheduledPostsRepository,
    private readonly schedule: ScheduleService,
    private readonly connections: ConnectionsService,
    private readonly publisher: Publisher,
    private readonly events: PostEvents,
    private readonly audit: AuditLog,
  ) {}

  async publishNow(actor: Requester, postId: string): Promise<PublishOutcome> {
    const { workspaceId } = actor;
    const post = await this.schedule.get(workspaceId, postId);
    if (post.status !== 'pending') throw AppError.invalidTransition(post.status, 'publish');
    await this.schedule.publishable(this.ds.manager, workspaceId, post.contentId);
    await this.connections.connected(workspaceId, post.platformKey);
    const claimed = await inTransaction(this.ds, async (tx) => {
      const post = await this.posts.claimNow(tx, workspaceId, postId, newClaimId());
      if (post) await this.recordRequest(tx, actor, post);
      return post;
    });
    if (!claimed) throw AppError.invalidTransition('publishing', 'publish');
    return this.run(claimed);
  }

  /** Creates the item's post on the platform, or moves its pending one to now, and publishes it. */
  async publishContent(actor: Requester, contentId: string, platformName: string): Promise<PublishOutcome> {
    const { workspaceId } = actor;
    // Everything that can refuse is checked before anything is written: a 4xx leaves the schedule as it was.
    // (Should the item change after this check, the attempt's own check refuses it.)
    const item = await this.schedule.publishable(this.ds.manager, workspaceId, contentId);
    const platform = compatiblePlatform(platformName, item, 'platform');
    await this.connections.connected(workspaceId, platform);
    // Created (or moved) and claimed in one transaction: the dispatcher never sees it pending.
    const claimed = await inTransaction(this.ds, async (tx) => {
      const open = await this.posts.findOpen(tx, workspaceId, contentId, platform);
      if (open?.status === 'publishing') throw AppError.invalidTransition('publishing', 'publish');
      const postId = open
        ? open.id
        : (await this.posts.insert(tx, [{ id: newId('sch'), workspaceId, contentId, characterId: item.characterId, platform: platformName, platformKey: platform, scheduledAt: new Date() }]))[0].id;
      if (open) await this.posts.reschedule(tx, workspaceId, open.id, new Date());
      const post = (await this.posts.claimNow(tx, workspaceId, postId, newClaimId()))!;
      await this.recordRequest(tx, actor, post);
      return post;
    }).catch((err: unknown) => {
      if (isUniqueViolation(err, 'scheduled_posts_one_pending')) throw AppError.invalidTransition('publishing', 'publish');
      throw err;
    });
    return this.run(claimed);
  }

  /** The request is what the caller did; how the platform answered is the post's own status. */
  private recordRequest(tx: Tx, actor: Requester, post: ScheduledPost): Promise<void> {
    return this.audit.record(tx, {
      workspaceId: actor.workspaceId, actorUserId: actor.userId, action: 'post.publish_requested', targetType: 'scheduled_post', targetId: post.id,
      details: { content_id: post.contentId, platform: post.platform },
    });
  }

  private async run(claimed: ScheduledPost): Promise<PublishOutcome> {
    await this.events.changed(claimed);
    const post = await this.publisher.attempt(claimed);
    if (post.status === 'published' && post.remotePostId) {
      return { post, result: { remotePostId: post.remotePostId, mediaUrls: post.mediaUrls } };
    }
    if (post.status === 'publishing') {
      throw new AppError('upstream_failed', `${post.platform} has not confirmed the post yet; it will be checked again, and never sent twice.`, {
        platform: post.platform, code: 'unconfirmed', scheduled_post: toScheduledPostBody(post),
      });
    }
    const code = post.error?.code ?? 'unknown_error';
    throw new AppError('upstream_failed', post.error?.message ?? `${post.platform} did not publish the post.`, {
      platform: post.platform, code, scheduled_post: toScheduledPostBody(post),
    });
  }
}
