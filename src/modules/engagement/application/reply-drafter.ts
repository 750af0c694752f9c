import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, type OutboxEvent } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Outbox, OutboxSubscribers, type DeliveryAttempt } from '../../../platform/outbox/index.js';
import { CharactersFacade, toCharacterBrief } from '../../characters/index.js';
import { failsForGood, TextGenerator } from '../../generation/index.js';
import type { Conversation, ConversationMessage } from '../domain/conversation.js';
import { filing, nextSendAt, planReply, replyLimit } from '../domain/responder.js';
import { ConversationsRepository } from '../infrastructure/conversations.repository.js';
import { ResponderSettingsRepository } from '../infrastructure/responder-settings.repository.js';
import { ConversationEvents } from './conversation-events.js';

/** How much of a conversation the text generator sees as context. */
const THREAD_CONTEXT = 12;

/** A draft as the text generator left it: its text, or why it wrote none. */
type Drafted = { text: string; error: null } | { text: ''; error: { code: string; message: string } };

/**
 * The responder: for each new message from the audience, drafts a reply in the character's voice
 * when its settings say to answer, then either queues it (auto: after the delay, within the hourly
 * cap) or leaves it for a person (review mode, a banned topic). The settings are read again under
 * the character's lock once the draft is written, so a change made meanwhile wins. An event
 * delivered twice drafts once (one auto draft per message, by a unique index). A draft the text
 * generator cannot write (a refusal or an unusable answer, which a retry would repeat, or any
 * failure on the outbox's last attempt) is not dropped: an empty draft waits for a person
 * (`draft_failed`, with the generator's error), who writes the reply when approving it.
 */
@Injectable()
export class ReplyDrafter implements OnModuleInit {
  private readonly logger = new Logger('Engagement');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly subscribers: OutboxSubscribers,
    private readonly outbox: Outbox,
    private readonly conversations: ConversationsRepository,
    private readonly settings: ResponderSettingsRepository,
    private readonly characters: CharactersFacade,
    private readonly text: TextGenerator,
    private readonly events: ConversationEvents,
  ) {}

  onModuleInit(): void {
    this.subscribers.register({
      name: 'engagement.responder',
      types: ['engagement.message_received'],
      handle: (event, _secret, attempt) => this.handle(event as OutboxEvent<'engagement.message_received'>, attempt),
    });
  }

  async handle(event: OutboxEvent<'engagement.message_received'>, attempt: DeliveryAttempt): Promise<void> {
    const workspaceId = event.workspaceId!;
    const message = await this.conversations.message(workspaceId, event.payload.messageId);
    if (!message) return;
    const [conversation, settings] = await Promise.all([
      this.conversations.find(workspaceId, message.conversationId),
      this.settings.get(workspaceId, message.characterId),
    ]);
    if (!conversation) return;
    if (planReply(settings, conversation.platform, conversation.status, message.text).kind === 'none') return;
    const drafted = await this.draft(workspaceId, conversation, message, settings.greetingMessage).then(
      (text): Drafted => ({ text, error: null }),
      (err: unknown) => this.unwritten(err, attempt, workspaceId, message.id),
    );
    const draft = await this.file(workspaceId, conversation.id, message, drafted);
    if (draft?.status === 'pending_review') await this.events.replyPending(workspaceId, draft);
  }

  private async draft(workspaceId: string, conversation: Conversation, message: ConversationMessage, greeting: string | null): Promise<string> {
    const [character, thread, replied] = await Promise.all([
      this.characters.get(workspaceId, conversation.characterId),
      this.conversations.messages(workspaceId, conversation.id, THREAD_CONTEXT),
      this.conversations.hasReplied(workspaceId, conversation.id),
    ]);
    const upTo = thread.filter((m) => m.createdAt <= message.createdAt && m.status !== 'pending_review' && m.status !== 'discarded' && m.status !== 'failed');
    const { text } = await this.text.reply({
      character: toCharacterBrief(character),
      platform: conversation.platform,
      channel: message.channel,
      thread: upTo.map((m) => ({ from: m.direction === 'inbound' ? 'audience' : 'character', text: m.text, ...(m.direction === 'inbound' ? { author: conversation.platformUserName } : {}) })),
      greeting: replied ? null : greeting,
      maxLength: replyLimit(conversation.platform, message.channel),
    });
    return text;
  }

  /** A draft that failed for good, or on the last attempt, is filed empty for a person; any other failure is retried. */
  private unwritten(err: unknown, attempt: DeliveryAttempt, workspaceId: string, messageId: string): Drafted {
    if (!failsForGood(err) && !attempt.last) throw err;
    const error = err instanceof AppError ? { code: err.code, message: err.message } : { code: 'draft_failed', message: 'The reply could not be drafted.' };
    this.logger.warn({ msg: 'reply not drafted; it waits for a person', workspace_id: workspaceId, message_id: messageId, attempt: attempt.attempt, code: error.code, err: err instanceof Error ? err.message : String(err) });
    return { text: '', error };
  }

  /** Files the draft under the character's lock: queued at its send time, or waiting for a person. */
  private async file(workspaceId: string, conversationId: string, message: ConversationMessage, drafted: Drafted): Promise<ConversationMessage | null> {
    return inTransaction(this.ds, async (tx) => {
      const settings = await this.settings.lock(tx, workspaceId, message.characterId);
      const conversation = await this.conversations.lock(tx, workspaceId, conversationId);
      if (!conversation) return null;
      const plan = planReply(settings, conversation.platform, conversation.status, message.text);
      if (plan.kind === 'none') return null;
      const { status, reviewReason } = filing(plan, drafted.error === null);
      const auto = status === 'queued';
      const sendAt = auto ? nextSendAt(new Date(), settings.responseDelaySeconds, settings.maxRepliesPerHour, await this.conversations.latestAutoSends(tx, message.characterId, settings.maxRepliesPerHour)) : null;
      const draft = await this.conversations.insertReply(tx, {
        workspaceId, conversation, channel: message.channel, origin: 'auto', text: drafted.text, status,
        replyToId: message.id, reviewReason, authorUserId: null, sendAt, error: drafted.error,
      });
      if (!draft) return null;
      if (auto) {
        await this.outbox.record(tx, { type: 'engagement.reply_due', workspaceId, payload: { messageId: draft.id, conversationId }, availableAt: sendAt! });
      } else if (conversation.status === 'open') {
        await this.conversations.setStatus(tx, workspaceId, conversationId, 'pending_review');
      }
      this.logger.log({ msg: auto ? 'reply queued' : 'reply waits for review', workspace_id: workspaceId, message_id: draft.id, send_at: sendAt?.toISOString(), reason: reviewReason ?? undefined });
      return draft;
    });
  }
}
