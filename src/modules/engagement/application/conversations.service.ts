import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type Caller, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { AuditLog, type AuditAction } from '../../audit/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { settledStatus, type Conversation, type ConversationMessage } from '../domain/conversation.js';
import { replyLimit } from '../domain/responder.js';
import { ConversationsRepository, type ConversationFilter } from '../infrastructure/conversations.repository.js';

/** How many of a conversation's latest messages its read answers. */
export const THREAD_LIMIT = 200;

export interface ConversationWithMessages {
  conversation: Conversation;
  messages: ConversationMessage[];
}

/**
 * What people do with conversations: read them, answer by hand, approve a drafted reply, pause
 * the responder for one person and resume it. A reply a person sends or approves goes at once
 * (no delay, outside the hourly cap) through the same exactly-once sender as auto replies.
 */
@Injectable()
export class ConversationsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharactersFacade,
    private readonly conversations: ConversationsRepository,
    private readonly outbox: Outbox,
    private readonly audit: AuditLog,
  ) {}

  async list(workspaceId: string, characterId: string, filter: ConversationFilter, page: PageRequest): Promise<Page<Conversation>> {
    await this.characters.get(workspaceId, characterId);
    return this.conversations.list(workspaceId, characterId, filter, page);
  }

  async get(workspaceId: string, id: string): Promise<ConversationWithMessages> {
    const conversation = await this.conversations.find(workspaceId, id);
    if (!conversation) throw AppError.notFound('Conversation');
    return { conversation, messages: await this.conversations.messages(workspaceId, id, THREAD_LIMIT) };
  }

  async reply(caller: Caller, id: string, text: string): Promise<ConversationMessage> {
    return inTransaction(this.ds, async (tx) => {
      const conversation = await this.locked(tx, caller.workspaceId, id);
      const answered = await this.conversations.latestInbound(tx, caller.workspaceId, id);
      if (!answered) throw new AppError('invalid_state_transition', 'The conversation has no message to answer yet.');
      assertFits(text, conversation, answered.channel);
      const reply = (await this.conversations.insertReply(tx, {
        workspaceId: caller.workspaceId, conversation, channel: answered.channel, origin: 'manual', text, status: 'queued',
        replyToId: answered.id, reviewReason: null, authorUserId: caller.userId, sendAt: new Date(),
      }))!;
      await this.queue(tx, caller.workspaceId, reply);
      await this.record(tx, caller, 'conversation.replied', id, { message_id: reply.id, channel: reply.channel });
      return reply;
    });
  }

  async approve(caller: Caller, id: string, messageId: string, text: string | undefined): Promise<ConversationMessage> {
    return inTransaction(this.ds, async (tx) => {
      const conversation = await this.locked(tx, caller.workspaceId, id);
      const draft = await this.conversations.message(caller.workspaceId, messageId, tx);
      if (!draft || draft.conversationId !== id) throw AppError.notFound('Message');
      if (text !== undefined) assertFits(text, conversation, draft.channel);
      else if (draft.status === 'pending_review' && draft.text === '') {
        throw new AppError('validation_failed', 'This draft has no text (the text generator could not write it): send the reply as text.', [{ field: 'text', message: 'required: the draft is empty' }]);
      }
      const approved = await this.conversations.approve(tx, caller.workspaceId, messageId, caller.userId, text);
      if (!approved) throw new AppError('invalid_state_transition', `Only a reply waiting for review can be approved; this one is ${draft.status}.`, { status: draft.status });
      await this.queue(tx, caller.workspaceId, approved);
      if (conversation.status === 'pending_review') {
        await this.conversations.setStatus(tx, caller.workspaceId, id, settledStatus(await this.conversations.pendingDrafts(tx, caller.workspaceId, id)));
      }
      await this.record(tx, caller, 'conversation.reply_approved', id, { message_id: messageId, edited: text !== undefined });
      return approved;
    });
  }

  /** Stops auto replies to this person: replies queued and not yet sent wait for a person instead. */
  async pause(caller: Caller, id: string): Promise<Conversation> {
    return inTransaction(this.ds, async (tx) => {
      const conversation = await this.locked(tx, caller.workspaceId, id);
      if (conversation.status === 'paused') return conversation;
      const held = await this.conversations.holdQueuedAutoReplies(tx, caller.workspaceId, id);
      await this.record(tx, caller, 'conversation.paused', id, { held_replies: held });
      return this.conversations.setStatus(tx, caller.workspaceId, id, 'paused');
    });
  }

  async resume(caller: Caller, id: string): Promise<Conversation> {
    return inTransaction(this.ds, async (tx) => {
      const conversation = await this.locked(tx, caller.workspaceId, id);
      if (conversation.status !== 'paused') return conversation;
      await this.record(tx, caller, 'conversation.resumed', id, {});
      return this.conversations.setStatus(tx, caller.workspaceId, id, settledStatus(await this.conversations.pendingDrafts(tx, caller.workspaceId, id)));
    });
  }

  private async locked(tx: Tx, workspaceId: string, id: string): Promise<Conversation> {
    const conversation = await this.conversations.lock(tx, workspaceId, id);
    if (!conversation) throw AppError.notFound('Conversation');
    return conversation;
  }

  private queue(tx: Tx, workspaceId: string, reply: ConversationMessage): Promise<string> {
    return this.outbox.record(tx, { type: 'engagement.reply_due', workspaceId, payload: { messageId: reply.id, conversationId: reply.conversationId } });
  }

  private record(tx: Tx, caller: Caller, action: AuditAction, id: string, details: Record<string, unknown>): Promise<void> {
    return this.audit.record(tx, { workspaceId: caller.workspaceId, actorUserId: caller.userId, action, targetType: 'conversation', targetId: id, details });
  }
}

function assertFits(text: string, conversation: Conversation, channel: 'comment' | 'dm'): void {
  const limit = replyLimit(conversation.platform, channel);
  if (text.length > limit) {
    throw new AppError('validation_failed', `A ${channel === 'dm' ? 'direct message' : 'comment reply'} on ${conversation.platform} holds at most ${limit} characters.`, [
      { field: 'text', message: `at most ${limit} characters` },
    ]);
  }
}
