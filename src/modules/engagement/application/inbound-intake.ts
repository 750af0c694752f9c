import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { inTransaction } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { PublishingFacade } from '../../publishing/index.js';
import type { ConversationMessage } from '../domain/conversation.js';
import type { InboundMessage } from '../domain/inbound.js';
import { ConversationsRepository } from '../infrastructure/conversations.repository.js';
import { ResponderSettingsRepository } from '../infrastructure/responder-settings.repository.js';
import { ConversationEvents } from './conversation-events.js';

/** What one delivery or read did: messages stored, ones seen before, ones no workspace or character takes. */
export interface IntakeResult {
  stored: number;
  duplicates: number;
  unrouted: number;
}

/**
 * Stores what the platforms deliver or the polls read: each message once per workspace that
 * connected the account, in the conversation of the character it was meant for. A new message
 * from the audience is announced through the outbox in the same transaction, so the responder
 * sees every stored message exactly as often as it was stored: once. Drafting (a provider call)
 * happens there, never in the platform's request.
 */
@Injectable()
export class InboundIntake {
  private readonly logger = new Logger('Engagement');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly publishing: PublishingFacade,
    private readonly conversations: ConversationsRepository,
    private readonly settings: ResponderSettingsRepository,
    private readonly outbox: Outbox,
    private readonly events: ConversationEvents,
  ) {}

  async receive(messages: readonly InboundMessage[]): Promise<IntakeResult> {
    const result: IntakeResult = { stored: 0, duplicates: 0, unrouted: 0 };
    const stored: Array<{ workspaceId: string; message: ConversationMessage }> = [];
    for (const m of messages) {
      const workspaces = await this.publishing.workspacesOfAccount(m.platform, m.accountId);
      if (workspaces.length === 0) result.unrouted++;
      for (const { workspaceId } of workspaces) {
        const message = await this.storeIn(workspaceId, m);
        if (message === 'unrouted') result.unrouted++;
        else if (message === null) result.duplicates++;
        else {
          result.stored++;
          stored.push({ workspaceId, message });
        }
      }
    }
    await Promise.all(stored.map(({ workspaceId, message }) => this.events.message(workspaceId, message)));
    return result;
  }

  private async storeIn(workspaceId: string, m: InboundMessage): Promise<ConversationMessage | null | 'unrouted'> {
    const byPost = m.remotePostId ? await this.publishing.characterOfRemotePost(workspaceId, m.platform, m.remotePostId) : null;
    return inTransaction(this.ds, async (tx) => {
      const characterId = byPost ?? (await this.settings.characterFor(tx, workspaceId, m.platform, m.authorId));
      if (characterId === null) {
        this.logger.log({ msg: 'inbound message with no character to take it', workspace_id: workspaceId, platform: m.platform, channel: m.channel });
        return 'unrouted';
      }
      const conversation = await this.conversations.upsert(tx, workspaceId, characterId, m);
      if (m.own) return this.conversations.insertOwn(tx, conversation, m);
      const message = await this.conversations.insertInbound(tx, conversation, m);
      // A paused or closed conversation is not answered: what arrives meanwhile stays unanswered after a resume.
      if (message && (conversation.status === 'open' || conversation.status === 'pending_review')) {
        await this.outbox.record(tx, {
          type: 'engagement.message_received',
          workspaceId,
          payload: { messageId: message.id, conversationId: conversation.id, characterId },
        });
      }
      return message;
    });
  }
}
