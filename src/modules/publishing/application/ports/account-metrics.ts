import type { Platform } from '../../../../core/index.js';

/**
 * Platform metrics (contract §15). A metric a platform does not report is null, never 0.
 * Shared by the publishing adapters (which read them) and the analytics context (which stores them).
 */
export interface PostMetrics {
  impressions: number | null;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}

export interface RemotePostMetrics {
  remotePostId: string;
  metrics: PostMetrics;
}

/** One read of a connected account: its followers now and the metrics of the posts asked about. */
export interface AccountMetrics {
  platform: Platform;
  accountId: string;
  followers: number | null;
  /** Posts the platform answered for; a post it no longer has is left out. */
  posts: RemotePostMetrics[];
  /** Sandbox connections: deterministic simulated numbers. */
  simulated: boolean;
  readAt: Date;
}

/** A published post of a workspace, as analytics needs it to ask for and file its metrics. */
export interface PublishedPost {
  scheduledPostId: string;
  contentId: string;
  characterId: string;
  platform: Platform;
  remotePostId: string;
  remoteUrl: string | null;
  publishedAt: Date;
}

/** A workspace's live connection to a platform, as the analytics scheduler lists them. */
export interface ConnectionRef {
  workspaceId: string;
  platform: Platform;
  accountId: string;
}
