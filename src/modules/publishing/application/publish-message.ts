import type { ScheduledPost } from '../domain/scheduled-post.js';

/**
 * What one `publish` queue message names. The queue carries a single string per message, so the
 * workspace and post ids travel as `<workspace id>/<post id>` (ids are `prefix_ULID`: never a slash).
 */
export interface PublishMessage {
  /** Null for a message queued by a release that sent the bare post id (see Dispatcher.run). */
  workspaceId: string | null;
  postId: string;
}

const SEPARATOR = '/';

export function publishMessageOf(post: Pick<ScheduledPost, 'workspaceId' | 'id'>): string {
  return `${post.workspaceId}${SEPARATOR}${post.id}`;
}

export function readPublishMessage(body: string): PublishMessage {
  const at = body.indexOf(SEPARATOR);
  if (at < 0) return { workspaceId: null, postId: body };
  return { workspaceId: body.slice(0, at), postId: body.slice(at + 1) };
}
