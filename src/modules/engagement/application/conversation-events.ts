import { Injectable, Logger } from '@nestjs/common';
import { RealtimePublisher } from '../../../platform/realtime/index.js';
import type { Conversation, ConversationMessage } from '../domain/conversation.js';

/** The wire body of a conversation (docs/engagement.md). */
export function toConversationBody(c: Conversation): Record<string, unknown> {
  return {
    id: c.id,
    character_id: c.characterId,
    platform: c.platform,
    platform_user_id: c.platformUserId,
    platform_user_name: c.platformUserName,
    status: c.status,
    last_message_at: c.lastMessageAt.toISOString(),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

/** The wire body of one message of a conversation. */
export function toMessageBody(m: ConversationMessage): Record<string, unknown> {
  return {
    id: m.id,
    conversation_id: m.conversationId,
    direction: m.direction,
    channel: m.channel,
    origin: m.origin,
    text: m.text,
    status: m.status,
    platform_message_id: m.platformMessageId,
    remote_post_id: m.remotePostId,
    reply_to_id: m.replyToId,
    review_reason: m.reviewReason,
    send_at: m.sendAt?.toISOString() ?? null,
    sent_at: m.sentAt?.toISOString() ?? null,
    error: m.error,
    created_at: m.createdAt.toISOString(),
  };
}

/**
 * `conversation.message` when a message is stored or a reply went out, `conversation.reply_pending`
 * when a drafted reply waits for a person. Published after commit; a lost event costs a client a
 * poll, never a message, so failures are logged, not thrown.
 */
@Injectable()
export class ConversationEvents {
  private readonly logger = new Logger('Engagement');

  constructor(private readonly publisher: RealtimePublisher) {}

  message(workspaceId: string, message: ConversationMessage): Promise<void> {
    return this.send(workspaceId, message, 'conversation.message');
  }

  replyPending(workspaceId: string, message: ConversationMessage): Promise<void> {
    return this.send(workspaceId, message, 'conversation.reply_pending');
  }

  private async send(workspaceId: string, message: ConversationMessage, type: 'conversation.message' | 'conversation.reply_pending'): Promise<void> {
    try {
      await this.publisher.publish(workspaceId, { type, message: toMessageBody(message) });
    } catch (err) {
      this.logger.warn({ msg: 'conversation event not published', workspace_id: workspaceId, message_id: message.id, err: String(err) });
    }
  }
}
