import { MalformedDelivery, parseInstagramDelivery, parseXDelivery } from './inbound.js';

const now = new Date('2026-11-28T12:00:00Z');

describe('parseInstagramDelivery', () => {
  it('reads comments and direct messages, and knows the account’s own echoes', () => {
    const messages = parseInstagramDelivery({
      object: 'instagram',
      entry: [
        { id: '1784', time: 1764331200, changes: [{ field: 'comments', value: { id: 'c1', text: 'Love it', from: { id: 'u9', username: 'fan' }, media: { id: 'm1' } } }] },
        {
          id: '1784', time: 1764331200,
          messaging: [
            { sender: { id: 'u9' }, recipient: { id: '1784' }, timestamp: 1764331200000, message: { mid: 'mid.1', text: 'hello' } },
            { sender: { id: '1784' }, recipient: { id: 'u9' }, timestamp: 1764331201000, message: { mid: 'mid.2', text: 'hi!', is_echo: true } },
            { sender: { id: 'u9' }, recipient: { id: '1784' }, timestamp: 1764331202000, message: { mid: 'mid.3', attachments: [] } },
          ],
        },
        { id: '1784', changes: [{ field: 'mentions', value: { id: 'x' } }] },
      ],
    }, now);
    expect(messages).toHaveLength(3);
    expect(messages[0]).toMatchObject({ channel: 'comment', platformMessageId: 'c1', authorId: 'u9', authorName: 'fan', remotePostId: 'm1', replyTarget: 'c1', own: false, accountId: '1784' });
    expect(messages[1]).toMatchObject({ channel: 'dm', platformMessageId: 'mid.1', authorId: 'u9', replyTarget: 'u9', own: false });
    expect(messages[1].createdAt.toISOString()).toBe('2025-11-28T12:00:00.000Z');
    expect(messages[2]).toMatchObject({ channel: 'dm', platformMessageId: 'mid.2', authorId: 'u9', own: true });
  });

  it('refuses what is not an Instagram delivery', () => {
    expect(() => parseInstagramDelivery({ object: 'page', entry: [] })).toThrow(MalformedDelivery);
    expect(() => parseInstagramDelivery([1, 2])).toThrow(MalformedDelivery);
  });
});

describe('parseXDelivery', () => {
  it('reads direct messages and mentions for the account', () => {
    const messages = parseXDelivery({
      for_user_id: '42',
      direct_message_events: [
        { type: 'message_create', id: 'dm1', created_timestamp: '1764331200000', message_create: { target: { recipient_id: '42' }, sender_id: '7', message_data: { text: 'hey' } } },
        { type: 'message_create', id: 'dm2', created_timestamp: '1764331201000', message_create: { target: { recipient_id: '7' }, sender_id: '42', message_data: { text: 'yo' } } },
      ],
      users: { 7: { id: '7', screen_name: 'seven' } },
      tweet_create_events: [{ id_str: 't1', text: '@me nice', user: { id_str: '8', screen_name: 'eight' }, in_reply_to_status_id_str: 't0', created_at: 'Sat Nov 28 12:00:00 +0000 2026' }],
    }, now);
    expect(messages.map((m) => [m.channel, m.platformMessageId, m.authorId, m.own])).toEqual([
      ['dm', 'dm1', '7', false],
      ['dm', 'dm2', '7', true],
      ['comment', 't1', '8', false],
    ]);
    expect(messages[0].authorName).toBe('seven');
    expect(messages[2]).toMatchObject({ remotePostId: 't0', replyTarget: 't1', authorName: 'eight' });
  });

  it('refuses an event without for_user_id', () => {
    expect(() => parseXDelivery({ direct_message_events: [] })).toThrow(MalformedDelivery);
  });
});
