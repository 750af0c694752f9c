import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxSubscribers, type DeliveryAttempt } from '../../../platform/outbox/index.js';
import { PublishFailure, PublishingFacade } from '../../publishing/index.js';
import type { ConversationMessage } from '../domain/conversation.js';
import { ConversationsRepository } from '../infrastructure/conversations.repository.js';
import { ConversationEvents } from './conversation-events.js';

/** Failures a later attempt may mend: nothing went out, and the platform or the network may answer next time. */
const RETRYABLE = new Set(['rate_limited', 'network_error']);

/**
 * Sends due replies through the platform adapters, exactly once. The outbox delivers a reply's
 * event at least once; the reply row is claimed (`queued` → `sending`) by one worker, and only a
 * send refused before anything went out is queued again. A send whose outcome is unknown (a
 * timeout after the request left, a worker that died mid-call) is marked failed `unconfirmed`,
 * never sent blindly again: a person can send it by hand after looking at the platform.
 */
@Injectable()
export class ReplySender implements OnModuleInit {
  private readonly logger = new Logger('Engagement');

  constructor(
    private readonly subscribers: OutboxSubscribers,
    private readonly conversations: ConversationsRepository,
    private readonly publishing: PublishingFacade,
    private readonly events: ConversationEvents,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.subscribers.register({ name: 'engagement.sender', types: ['engagement.reply_due'], handle: (event, _secret, attempt) => this.handle(event as OutboxEvent<'engagement.reply_due'>, attempt) });
  }

  async handle(event: OutboxEvent<'engagement.reply_due'>, attempt: DeliveryAttempt): Promise<void> {
    const workspaceId = event.workspaceId!;
    const { messageId, conversationId } = event.payload;
    const reply = await this.conversations.claim(workspaceId, messageId);
    if (!reply) return this.unclaimed(workspaceId, messageId);
    const conversation = await this.conversations.find(workspaceId, conversationId);
    const target = conversation ? await this.targetOf(workspaceId, reply, conversation.platformUserId) : null;
    if (!conversation || target === null) {
      await this.conversations.markFailed(workspaceId, reply.id, 'not_found', 'The message this reply answers is gone.');
      return;
    }
    try {
      const sent = await this.publishing.sendReply(workspaceId, conversation.platform, { channel: reply.channel, target, text: reply.text, replyId: reply.id });
      const done = await this.conversations.markSent(workspaceId, reply.id, sent.remoteMessageId);
      this.logger.log({ msg: 'reply sent', workspace_id: workspaceId, message_id: reply.id, platform: conversation.platform, channel: reply.channel });
      if (done) await this.events.message(workspaceId, done);
    } catch (err) {
      await this.failed(workspaceId, reply, err, attempt);
    }
  }

  /** A comment reply answers the comment; a direct message goes to the person of the conversation. */
  private async targetOf(workspaceId: string, reply: ConversationMessage, platformUserId: string): Promise<string | null> {
    if (reply.channel === 'dm') return platformUserId;
    if (!reply.replyToId) return null;
    const answered = await this.conversations.message(workspaceId, reply.replyToId);
    return answered?.platformMessageId ?? null;
  }

  private async failed(workspaceId: string, reply: ConversationMessage, err: unknown, attempt: DeliveryAttempt): Promise<void> {
    const failure = err instanceof PublishFailure ? err : null;
    if (failure?.point === 'unknown') {
      await this.conversations.markFailed(workspaceId, reply.id, 'unconfirmed', `The platform did not confirm the reply: ${failure.message}`);
      return;
    }
    const retryable = failure === null || RETRYABLE.has(failure.code);
    if (retryable && !attempt.last) {
      await this.conversations.requeue(workspaceId, reply.id);
      throw err;
    }
    await this.conversations.markFailed(workspaceId, reply.id, failure?.code ?? 'unknown_error', failure?.message ?? 'The reply could not be sent.');
    this.logger.warn({ msg: 'reply failed', workspace_id: workspaceId, message_id: reply.id, code: failure?.code ?? 'unknown_error' });
  }

  /** Not claimable: sent already, held, or left `sending` by a worker that died mid-call (then its outcome is unknown). */
  private async unclaimed(workspaceId: string, id: string): Promise<void> {
    const reply = await this.conversations.message(workspaceId, id);
    const leaseMs = this.config.engagement.sendLeaseMs;
    if (reply?.status !== 'sending' || !reply.claimedAt) return;
    // Another worker may still be sending it: look again once its lease has run out.
    if (reply.claimedAt.getTime() + leaseMs >= Date.now()) throw new Error('the reply is being sent by another worker');
    await this.conversations.markFailed(workspaceId, id, 'unconfirmed', 'The worker sending this reply stopped before the platform answered.');
  }
}
