import type { Platform } from '../../../core/index.js';
import type { Channel } from './inbound.js';
import type { ReviewReason } from './responder.js';

export const CONVERSATION_STATUSES = ['open', 'pending_review', 'paused', 'closed'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/**
 * A message's life. Inbound: `received`. A reply: drafted for review (`pending_review`), or
 * `queued` until its `send_at`, then `sending` (claimed by one worker), then `sent` or `failed`;
 * a draft a person set aside, or one held when its conversation was paused and then answered by
 * hand, is `discarded`.
 */
export const MESSAGE_STATUSES = ['received', 'pending_review', 'queued', 'sending', 'sent', 'failed', 'discarded'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Who wrote it: the audience, the responder (`auto`), a person of the workspace (`manual`), or the account on the platform itself (`platform`). */
export const MESSAGE_ORIGINS = ['audience', 'auto', 'manual', 'platform'] as const;
export type MessageOrigin = (typeof MESSAGE_ORIGINS)[number];

export interface Conversation {
  id: string;
  workspaceId: string;
  characterId: string;
  platform: Platform;
  platformUserId: string;
  platformUserName: string;
  status: ConversationStatus;
  lastMessageAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConversationMessage {
  id: string;
  conversationId: string;
  characterId: string;
  platform: Platform;
  direction: 'inbound' | 'outbound';
  channel: Channel;
  origin: MessageOrigin;
  text: string;
  status: MessageStatus;
  platformMessageId: string | null;
  remotePostId: string | null;
  replyToId: string | null;
  reviewReason: ReviewReason | null;
  authorUserId: string | null;
  sendAt: Date | null;
  sentAt: Date | null;
  error: { code: string; message: string } | null;
  createdAt: Date;
}

/** The status a conversation returns to when a person is done with it: waiting again if drafts still wait. */
export function settledStatus(pendingDrafts: number): ConversationStatus {
  return pendingDrafts > 0 ? 'pending_review' : 'open';
}
