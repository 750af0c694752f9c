import { Injectable } from '@nestjs/common';
import type { Platform } from '../../../core/index.js';
import type { AccountMetrics, ConnectionRef, PublishedPost } from './ports/account-metrics.js';

/**
 * TEMPORARY stub so the analytics branch compiles on its own: the publishing helper's facade
 * (issue 17) replaces this file at merge. Every method refuses until then.
 */
@Injectable()
export class PublishingFacade {
  readAccountMetrics(workspaceId: string, platform: Platform, remotePostIds: string[]): Promise<AccountMetrics> {
    void workspaceId; void platform; void remotePostIds;
    return Promise.reject(new Error('not wired'));
  }

  publishedPosts(workspaceId: string, opts: { platform?: Platform; since?: Date }): Promise<PublishedPost[]> {
    void workspaceId; void opts;
    return Promise.reject(new Error('not wired'));
  }

  liveConnections(): Promise<ConnectionRef[]> {
    return Promise.reject(new Error('not wired'));
  }

  connectionsOf(workspaceId: string): Promise<ConnectionRef[]> {
    void workspaceId;
    return Promise.reject(new Error('not wired'));
  }
}
