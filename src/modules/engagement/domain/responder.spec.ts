import { bannedTopicIn, DEFAULT_RESPONDER, filing, nextSendAt, patchedResponder, planReply, replyLimit, type ResponderSettings } from './responder.js';

const on: ResponderSettings = { ...DEFAULT_RESPONDER, enabled: true, platformsEnabled: ['instagram', 'twitter'], mode: 'auto', bannedTopics: ['crypto', 'politics'] };
const at = (iso: string) => new Date(iso);

describe('bannedTopicIn', () => {
  it('matches whole words and plurals, whatever the case and accents', () => {
    expect(bannedTopicIn('Any thoughts on CRYPTO?', ['crypto'])).toBe('crypto');
    expect(bannedTopicIn('cryptos are wild', ['crypto'])).toBe('crypto');
    expect(bannedTopicIn('Politíque et politics', ['politics'])).toBe('politics');
    expect(bannedTopicIn('I love your café', ['cafe'])).toBe('cafe');
  });

  it('does not match inside a longer word, and matches phrases as phrases', () => {
    expect(bannedTopicIn('cryptography is maths', ['crypto'])).toBeNull();
    expect(bannedTopicIn('the weight loss pills', ['weight loss'])).toBe('weight loss');
    expect(bannedTopicIn('loss of weight', ['weight loss'])).toBeNull();
    expect(bannedTopicIn('anything', ['', '  '])).toBeNull();
  });
});

describe('planReply', () => {
  it('answers nothing while the responder is off, off for the platform, or the conversation paused or closed', () => {
    expect(planReply({ ...on, enabled: false }, 'instagram', 'open', 'hi')).toEqual({ kind: 'none', why: 'responder_off' });
    expect(planReply(on, 'youtube', 'open', 'hi')).toEqual({ kind: 'none', why: 'platform_off' });
    expect(planReply(on, 'instagram', 'paused', 'hi')).toEqual({ kind: 'none', why: 'conversation_paused' });
    expect(planReply(on, 'instagram', 'closed', 'hi')).toEqual({ kind: 'none', why: 'conversation_closed' });
  });

  it('sends a banned topic to review before the mode is looked at, and review mode reviews everything', () => {
    expect(planReply(on, 'instagram', 'open', 'what about crypto')).toEqual({ kind: 'review', reason: 'banned_topic', topic: 'crypto' });
    expect(planReply({ ...on, mode: 'review' }, 'twitter', 'pending_review', 'nice post')).toEqual({ kind: 'review', reason: 'review_mode', topic: null });
    expect(planReply(on, 'twitter', 'open', 'nice post')).toEqual({ kind: 'auto' });
  });
});

describe('filing', () => {
  it('queues a written auto reply, holds a written review draft for its reason, and holds any unwritten draft as draft_failed', () => {
    expect(filing({ kind: 'auto' }, true)).toEqual({ status: 'queued', reviewReason: null });
    expect(filing({ kind: 'review', reason: 'banned_topic', topic: 'crypto' }, true)).toEqual({ status: 'pending_review', reviewReason: 'banned_topic' });
    expect(filing({ kind: 'auto' }, false)).toEqual({ status: 'pending_review', reviewReason: 'draft_failed' });
    expect(filing({ kind: 'review', reason: 'review_mode', topic: null }, false)).toEqual({ status: 'pending_review', reviewReason: 'draft_failed' });
  });
});

describe('nextSendAt', () => {
  const now = at('2026-11-28T12:00:00Z');

  it('waits the delay when the cap has room', () => {
    expect(nextSendAt(now, 90, 3, [])).toEqual(at('2026-11-28T12:01:30Z'));
    expect(nextSendAt(now, 0, 3, [at('2026-11-28T11:59:00Z'), at('2026-11-28T11:30:00Z')])).toEqual(now);
  });

  it('never goes before a reply already queued later (times only grow)', () => {
    expect(nextSendAt(now, 0, 5, [at('2026-11-28T12:10:00Z')])).toEqual(at('2026-11-28T12:10:00Z'));
  });

  it('holds the cap-th reply back until an hour after the cap-th latest one', () => {
    const sent = [at('2026-11-28T11:50:00Z'), at('2026-11-28T11:40:00Z'), at('2026-11-28T11:20:00Z')];
    expect(nextSendAt(now, 0, 3, sent)).toEqual(at('2026-11-28T12:20:00Z'));
    expect(nextSendAt(now, 0, 4, sent)).toEqual(now);
  });

  it('makes the 201st reply of an hour wait, with a cap of 200', () => {
    const times: Date[] = [];
    for (let i = 0; i < 201; i++) times.unshift(nextSendAt(new Date(now.getTime() + i * 1000), 0, 200, times.slice(0, 200)));
    const first = times[times.length - 1];
    expect(times[1]).toEqual(at('2026-11-28T12:03:19Z'));
    expect(times[0].getTime()).toBe(first.getTime() + 3_600_000);
    const inFirstHour = times.filter((t) => t.getTime() < first.getTime() + 3_600_000);
    expect(inFirstHour).toHaveLength(200);
  });
});

describe('replyLimit', () => {
  it('is each platform’s own limit', () => {
    expect(replyLimit('twitter', 'comment')).toBe(280);
    expect(replyLimit('instagram', 'dm')).toBe(1000);
    expect(replyLimit('instagram', 'comment')).toBe(2200);
    expect(replyLimit('youtube', 'comment')).toBe(10_000);
  });
});

describe('patchedResponder', () => {
  const saved: ResponderSettings = { ...on, greetingMessage: 'Hi!', updatedAt: new Date('2026-11-28T10:00:00Z') };

  it('keeps what the patch leaves out, and takes the defaults when nothing was saved', () => {
    expect(patchedResponder(saved, { mode: 'review' })).toMatchObject({ mode: 'review', enabled: true, greetingMessage: 'Hi!', bannedTopics: ['crypto', 'politics'] });
    expect(patchedResponder({ ...saved, updatedAt: null }, { enabled: true })).toEqual({ ...DEFAULT_RESPONDER, enabled: true, updatedAt: undefined });
  });

  it('clears the greeting with null or an empty text, and lists a banned topic once', () => {
    expect(patchedResponder(saved, { greetingMessage: null }).greetingMessage).toBeNull();
    expect(patchedResponder(saved, { greetingMessage: '' }).greetingMessage).toBeNull();
    expect(patchedResponder(saved, { bannedTopics: ['a', 'b', 'a'] }).bannedTopics).toEqual(['a', 'b']);
  });
});
