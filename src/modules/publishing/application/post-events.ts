import { Injectable, Logger } from '@nestjs/common';
import { RealtimePublisher } from '../../../platform/realtime/index.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';

/** The wire body of a scheduled post (contract §8). */
export function toScheduledPostBody(p: ScheduledPost): Record<string, unknown> {
  return {
    id: p.id,
    content_id: p.contentId,
    character_id: p.characterId,
    platform: p.platform,
    status: p.status,
    scheduled_at: p.scheduledAt.toISOString(),
    published_at: p.publishedAt?.toISOString() ?? null,
    remote_post_id: p.remotePostId,
    remote_url: p.remoteUrl,
    media_urls: p.mediaUrls,
    attempts: p.attempts,
    next_attempt_at: p.status === 'pending' ? (p.nextAttemptAt?.toISOString() ?? null) : null,
    error: p.error,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/**
 * `post.updated` for every change of a post, published after the change committed. A lost event
 * costs a client a poll, never a post: failures are logged, not thrown.
 */
@Injectable()
export class PostEvents {
  private readonly logger = new Logger('Publishing');

  constructor(private readonly publisher: RealtimePublisher) {}

  async changed(...posts: ScheduledPost[]): Promise<void> {
    await Promise.all(posts.map(async (post) => {
      try {
        await this.publisher.publish(post.workspaceId, { type: 'post.updated', scheduled_post: toScheduledPostBody(post) });
      } catch (err) {
        this.logger.warn({ msg: 'post event not published', workspace_id: post.workspaceId, post_id: post.id, err: String(err) });
      }
    }));
  }
}
