import { describe, expect, it } from '@jest/globals';
import { startInstagramFake } from '../../../../../test/fakes/platforms/instagram.js';
import {
  INSTAGRAM_TEST_APP_SECRET, INSTAGRAM_TEST_VERIFY_TOKEN, instagramCommentDelivery, instagramMessageDelivery, instagramVerificationQuery, X_TEST_CONSUMER_SECRET, xCrcExpected,
  xDirectMessageDelivery, xMentionDelivery,
} from '../../../../../test/fakes/platforms/webhooks.js';
import { startXFake } from '../../../../../test/fakes/platforms/x.js';
import { instagramChallenge, verifyInstagramSignature, verifyXSignature, xCrcResponse } from './webhook-signatures.js';

// Digests worked out once with `openssl dgst -sha256 -hmac`: the functions must agree with them, not with themselves.
const BODY = '{"object":"instagram","entry":[]}';
const IG_SIGNATURE = 'sha256=4868ba1823ceabaf8b38db993057d6e01e2dea967330aad8444f60a4531cd687';
const X_SIGNATURE = 'sha256=rCjUCEPV4y3JGCnJmKWuja1hc/Y0Z0o0uRTRH1zjM70=';

describe('verifyInstagramSignature', () => {
  it('accepts the app secret’s hex HMAC-SHA256 of the raw body, as a string or bytes, upper-case hex too', () => {
    expect(verifyInstagramSignature('app-secret', BODY, IG_SIGNATURE)).toBe(true);
    expect(verifyInstagramSignature('app-secret', Buffer.from(BODY), IG_SIGNATURE.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
    expect(verifyInstagramSignature('app-secret', BODY, [IG_SIGNATURE])).toBe(true);
  });

  it('refuses another secret, a changed body, a re-serialised body, and malformed or missing headers', () => {
    expect(verifyInstagramSignature('other-secret', BODY, IG_SIGNATURE)).toBe(false);
    expect(verifyInstagramSignature('app-secret', BODY.replace('[]', '[ ]'), IG_SIGNATURE)).toBe(false);
    expect(verifyInstagramSignature('app-secret', JSON.stringify(JSON.parse(BODY), null, 1), IG_SIGNATURE)).toBe(false);
    for (const header of [undefined, '', IG_SIGNATURE.slice(7), IG_SIGNATURE.slice(0, -2), `sha1=${IG_SIGNATURE.slice(7)}`, `${IG_SIGNATURE}00`, 'sha256=zz']) {
      expect(verifyInstagramSignature('app-secret', BODY, header)).toBe(false);
    }
  });

  it('refuses everything when no secret is configured', () => {
    expect(verifyInstagramSignature('', BODY, IG_SIGNATURE)).toBe(false);
  });
});

describe('verifyXSignature', () => {
  it('accepts the consumer secret’s base64 HMAC-SHA256 of the raw body', () => {
    expect(verifyXSignature('consumer-secret', BODY, X_SIGNATURE)).toBe(true);
  });

  it('refuses another secret, a changed body, the hex form and malformed headers', () => {
    expect(verifyXSignature('other', BODY, X_SIGNATURE)).toBe(false);
    expect(verifyXSignature('consumer-secret', `${BODY} `, X_SIGNATURE)).toBe(false);
    expect(verifyXSignature('consumer-secret', BODY, `sha256=${Buffer.from(X_SIGNATURE.slice(7), 'base64').toString('hex')}`)).toBe(false);
    for (const header of [undefined, X_SIGNATURE.slice(7), 'sha256=', 'sha256=!!!!']) expect(verifyXSignature('consumer-secret', BODY, header)).toBe(false);
    expect(verifyXSignature('', BODY, X_SIGNATURE)).toBe(false);
  });
});

describe('xCrcResponse', () => {
  it('answers sha256= and the base64 HMAC-SHA256 of the crc_token under the consumer secret', () => {
    expect(xCrcResponse('consumer-secret', 'crc-token-1')).toEqual({ response_token: 'sha256=aJ/TfRGygcFc7Yofl6IC07Ywjqb8THuaNEI/WohhbMw=' });
  });
});

describe('instagramChallenge', () => {
  const query = (over: Record<string, unknown> = {}) => ({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '1158201444', ...over });

  it('echoes the challenge to a subscribe request carrying our verify token', () => {
    expect(instagramChallenge('verify-me', query())).toBe('1158201444');
  });

  it('answers null for another token, another mode, a missing challenge or no token configured', () => {
    expect(instagramChallenge('verify-me', query({ 'hub.verify_token': 'verify-mf' }))).toBeNull();
    expect(instagramChallenge('verify-me', query({ 'hub.mode': 'unsubscribe' }))).toBeNull();
    expect(instagramChallenge('verify-me', query({ 'hub.challenge': undefined }))).toBeNull();
    expect(instagramChallenge('verify-me', query({ 'hub.verify_token': ['verify-me'] }))).toBeNull();
    expect(instagramChallenge('', query({ 'hub.verify_token': '' }))).toBeNull();
  });
});

describe('the test-side deliveries (test/fakes/platforms/webhooks.ts) against these checks', () => {
  it('signs Instagram comments and messages in the real payload shapes', async () => {
    const ig = await startInstagramFake();
    try {
      const comment = ig.receiveComment({ mediaId: '17900000000000001', text: 'love it', fromId: '1784', username: 'fan' });
      const d = instagramCommentDelivery(INSTAGRAM_TEST_APP_SECRET, comment);
      expect(verifyInstagramSignature(INSTAGRAM_TEST_APP_SECRET, d.body, d.headers['X-Hub-Signature-256'])).toBe(true);
      expect(d.payload).toEqual({ object: 'instagram', entry: [{ id: ig.options.accountId, time: comment.time, changes: [{ field: 'comments', value: { id: comment.id, text: 'love it', from: { id: '1784', username: 'fan' }, media: { id: '17900000000000001', media_product_type: 'FEED' } } }] }] });
      const echo = instagramMessageDelivery(INSTAGRAM_TEST_APP_SECRET, ig.receiveMessage({ fromId: '6123', text: 'hi' }), { isEcho: true });
      expect(verifyInstagramSignature(INSTAGRAM_TEST_APP_SECRET, echo.body, echo.headers['X-Hub-Signature-256'])).toBe(true);
      expect((echo.payload as { entry: [{ messaging: [{ sender: { id: string }; message: { is_echo?: boolean } }] }] }).entry[0].messaging[0]).toMatchObject({ sender: { id: ig.options.accountId }, message: { text: 'hi', is_echo: true } });
      expect(instagramChallenge(INSTAGRAM_TEST_VERIFY_TOKEN, Object.fromEntries(instagramVerificationQuery(INSTAGRAM_TEST_VERIFY_TOKEN)))).toBe('1158201444');
    } finally {
      await ig.close();
    }
  });

  it('signs X DMs and mentions, and expects the CRC answer these checks give', async () => {
    const x = await startXFake();
    try {
      const dm = xDirectMessageDelivery(X_TEST_CONSUMER_SECRET, x.options.accountId!, { senderId: '2244994945', recipientId: x.options.accountId!, text: 'hello' });
      expect(verifyXSignature(X_TEST_CONSUMER_SECRET, dm.body, dm.headers['x-twitter-webhooks-signature'])).toBe(true);
      const mention = x.addMention({ text: '@luna_grows hi', authorId: '33', authorUsername: 'friend', createdAt: new Date('2018-10-10T20:19:24Z') });
      const m = xMentionDelivery(X_TEST_CONSUMER_SECRET, mention);
      expect(verifyXSignature(X_TEST_CONSUMER_SECRET, m.body, m.headers['x-twitter-webhooks-signature'])).toBe(true);
      expect((m.payload as { tweet_create_events: [{ created_at: string; id_str: string }] }).tweet_create_events[0]).toMatchObject({ created_at: 'Wed Oct 10 20:19:24 +0000 2018', id_str: mention.id });
      expect(xCrcResponse(X_TEST_CONSUMER_SECRET, 'tok')).toEqual(xCrcExpected(X_TEST_CONSUMER_SECRET, 'tok'));
    } finally {
      await x.close();
    }
  });
});
