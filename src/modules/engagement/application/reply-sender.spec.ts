import type { AppConfig } from '../../../config/index.js';
import type { OutboxEvent } from '../../../core/index.js';
import { OutboxSubscribers } from '../../../platform/outbox/index.js';
import { PublishFailure, type PublishingFacade } from '../../publishing/index.js';
import type { ConversationMessage } from '../domain/conversation.js';
import type { ConversationsRepository } from '../infrastructure/conversations.repository.js';
import type { ConversationEvents } from './conversation-events.js';
import { ReplySender } from './reply-sender.js';

const event = { id: 'evt_1', type: 'engagement.reply_due', workspaceId: 'ws_1', payload: { messageId: 'cmsg_r', conversationId: 'cnv_1' }, occurredAt: new Date() } as OutboxEvent<'engagement.reply_due'>;
const reply = { id: 'cmsg_r', conversationId: 'cnv_1', channel: 'comment', text: 'thanks!', replyToId: 'cmsg_in', status: 'sending' } as ConversationMessage;

/** A sender over in-memory stand-ins: what it marked, and what it asked the platform. */
function harness(send: () => Promise<{ remoteMessageId: string }>, claimed: ConversationMessage | null = reply) {
  const marks: string[] = [];
  const sends: unknown[] = [];
  const repo = {
    claim: async () => claimed,
    find: async () => ({ id: 'cnv_1', platform: 'instagram', platformUserId: 'u1' }),
    message: async (_ws: string, id: string) => (id === 'cmsg_in' ? { platformMessageId: 'c_remote' } : { ...reply, status: 'sending', claimedAt: new Date(Date.now() - 10 * 60_000) }),
    markSent: async () => { marks.push('sent'); return { ...reply, status: 'sent' }; },
    markFailed: async (_ws: string, _id: string, code: string) => void marks.push(`failed:${code}`),
    requeue: async () => void marks.push('requeued'),
  } as unknown as ConversationsRepository;
  const publishing = { sendReply: async (...args: unknown[]) => { sends.push(args); return send(); } } as unknown as PublishingFacade;
  const events = { message: async () => undefined } as unknown as ConversationEvents;
  const config = { engagement: { sendLeaseMs: 120_000 } } as AppConfig;
  return { sender: new ReplySender(new OutboxSubscribers(), repo, publishing, events, config), marks, sends };
}

describe('ReplySender', () => {
  it('sends a claimed reply under the comment it answers, and marks it sent', async () => {
    const { sender, marks, sends } = harness(async () => ({ remoteMessageId: 'r1' }));
    await sender.handle(event, { attempt: 1, last: false });
    expect(sends).toEqual([['ws_1', 'instagram', { channel: 'comment', target: 'c_remote', text: 'thanks!', replyId: 'cmsg_r' }]]);
    expect(marks).toEqual(['sent']);
  });

  it('never sends again a reply whose outcome is unknown: it fails unconfirmed', async () => {
    const { sender, marks } = harness(async () => { throw new PublishFailure('network_error', 'timed out', 'unknown'); });
    await sender.handle(event, { attempt: 1, last: false });
    expect(marks).toEqual(['failed:unconfirmed']);
  });

  it('queues again a send refused before anything went out, and throws so the outbox retries', async () => {
    const { sender, marks } = harness(async () => { throw new PublishFailure('rate_limited', 'slow down', 'before', 1000); });
    await expect(sender.handle(event, { attempt: 1, last: false })).rejects.toThrow('slow down');
    expect(marks).toEqual(['requeued']);
  });

  it('fails for good on the last attempt, or on a refusal no retry mends', async () => {
    const last = harness(async () => { throw new PublishFailure('network_error', 'down', 'before'); });
    await last.sender.handle(event, { attempt: 12, last: true });
    expect(last.marks).toEqual(['failed:network_error']);
    const rejected = harness(async () => { throw new PublishFailure('content_rejected', 'too long', 'before'); });
    await rejected.sender.handle(event, { attempt: 1, last: false });
    expect(rejected.marks).toEqual(['failed:content_rejected']);
  });

  it('sends nothing for a reply it cannot claim, and fails one a stopped worker left sending past its lease', async () => {
    const { sender, marks, sends } = harness(async () => ({ remoteMessageId: 'r1' }), null);
    await sender.handle(event, { attempt: 2, last: false });
    expect(sends).toEqual([]);
    expect(marks).toEqual(['failed:unconfirmed']);
  });
});
