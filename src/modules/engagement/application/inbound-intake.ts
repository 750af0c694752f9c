import { Injectable, Logger } from '@nestjs/common';
import { newId, type Platform } from '../../../core/index.js';
import { ComposedStatement } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { PublishingFacade } from '../../publishing/index.js';
import type { ConversationMessage } from '../domain/conversation.js';
import type { InboundMessage } from '../domain/inbound.js';
import { ConversationsRepository } from '../infrastructure/conversations.repository.js';
import { ConversationEvents } from './conversation-events.js';
import { ShortMemory } from './short-memory.js';

/** How long a connected account's workspaces and a post's character are remembered. */
const MEMORY_MS = 5_000;

/** What one delivery or read did: messages stored, ones seen before, ones no workspace or character takes. */
export interface IntakeResult {
  stored: number;
  duplicates: number;
  unrouted: number;
}

/**
 * Stores what the platforms deliver or the polls read: each message once per workspace that
 * connected the account, in the conversation of the character it was meant for. A new message
 * from the audience is announced through the outbox in the same statement, so the responder
 * sees every stored message exactly as often as it was stored: once. Drafting (a provider call)
 * happens there, never in the platform's request.
 */
@Injectable()
export class InboundIntake {
  private readonly logger = new Logger('Engagement');
  // An account no workspace has connected is asked again each time: one connected a moment ago must not lose a delivery.
  private readonly accounts = new ShortMemory<string[]>(MEMORY_MS, (workspaces) => workspaces.length > 0);
  private readonly posts = new ShortMemory<string | null>(MEMORY_MS);

  constructor(
    private readonly publishing: PublishingFacade,
    private readonly conversations: ConversationsRepository,
    private readonly outbox: Outbox,
    private readonly events: ConversationEvents,
  ) {}

  async receive(messages: readonly InboundMessage[]): Promise<IntakeResult> {
    const result: IntakeResult = { stored: 0, duplicates: 0, unrouted: 0 };
    const stored: Array<{ workspaceId: string; message: ConversationMessage }> = [];
    for (const m of messages) {
      const workspaces = await this.workspacesOf(m.platform, m.accountId);
      if (workspaces.length === 0) result.unrouted++;
      for (const workspaceId of workspaces) {
        const message = await this.storeIn(workspaceId, m);
        if (message === 'unrouted') result.unrouted++;
        else if (message === null) result.duplicates++;
        else {
          result.stored++;
          stored.push({ workspaceId, message });
        }
      }
    }
    // Best effort, and not the platform's to wait for: the events go out after the answer.
    for (const { workspaceId, message } of stored) void this.events.message(workspaceId, message);
    return result;
  }

  private async storeIn(workspaceId: string, m: InboundMessage): Promise<ConversationMessage | null | 'unrouted'> {
    const byPost = await this.characterOfPost(workspaceId, m);
    // One statement: the conversation, the message and (when it is one to answer) its outbox event.
    const messageId = newId('cmsg');
    const statement = new ComposedStatement();
    this.conversations.addInbound(statement, workspaceId, m, byPost, messageId);
    if (!m.own) this.outbox.addTo(statement, { type: 'engagement.message_received', workspaceId, payload: { messageId } }, 'inbound_answerable');
    const { routed, message } = await this.conversations.runInbound(statement);
    if (!routed) return this.unrouted(workspaceId, m);
    if (message && !m.own) this.outbox.recordedElsewhere();
    return message;
  }

  private unrouted(workspaceId: string, m: InboundMessage): 'unrouted' {
    this.logger.log({ msg: 'inbound message with no character to take it', workspace_id: workspaceId, platform: m.platform, channel: m.channel });
    return 'unrouted';
  }

  /**
   * The workspaces connected to a platform account, remembered for a few seconds: a burst of
   * deliveries for one account asks once. A removed connection shows within that time, a new one at once.
   */
  private workspacesOf(platform: Platform, accountId: string): Promise<string[]> {
    return this.accounts.get(`${platform}:${accountId}`, async () => (await this.publishing.workspacesOfAccount(platform, accountId)).map((c) => c.workspaceId));
  }

  /** The character that published a post, remembered likewise: comments come in bursts on the same posts. */
  private characterOfPost(workspaceId: string, m: InboundMessage): Promise<string | null> {
    const post = m.remotePostId;
    if (!post) return Promise.resolve(null);
    return this.posts.get(`${workspaceId}:${m.platform}:${post}`, () => this.publishing.characterOfRemotePost(workspaceId, m.platform, post));
  }
}
