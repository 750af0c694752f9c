import { createHmac } from 'node:crypto';
import type { InstagramComment, InstagramMessage } from './instagram.js';
import type { XMention } from './x.js';

/**
 * Platform webhook deliveries as the platforms send them, signed the platforms' way: Instagram
 * (Meta) comments and messages with `X-Hub-Signature-256`, X Account Activity API events with
 * `x-twitter-webhooks-signature`, and the subscription checks (Meta's hub.challenge, X's CRC).
 * Signing is done here with node:crypto directly, not with the product's verifier, so a test
 * checks the product against the platforms' rules and not against itself.
 */

/** One delivery: the exact bytes to POST and the headers that go with them. */
export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
  /** The body as an object, for assertions. */
  payload: unknown;
}

/** Test secrets to sign deliveries with; give the service the same ones (Meta signs with the app secret: the fake's client secret). */
export const INSTAGRAM_TEST_APP_SECRET = 'instagram-secret';
export const INSTAGRAM_TEST_VERIFY_TOKEN = 'persona-studio-verify-token';
export const X_TEST_CONSUMER_SECRET = 'x-consumer-secret';

export function instagramSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

export function xSignature(consumerSecret: string, body: string): string {
  return `sha256=${createHmac('sha256', consumerSecret).update(body).digest('base64')}`;
}

/** Any Instagram payload, signed (several entries may arrive in one delivery). */
export function instagramDelivery(appSecret: string, payload: unknown): SignedDelivery {
  const body = JSON.stringify(payload);
  return { body, payload, headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': instagramSignature(appSecret, body) } };
}

/** The `comments` field change Meta sends for a comment on the account's media (`fake.receiveComment`). */
export function instagramCommentDelivery(appSecret: string, comment: InstagramComment): SignedDelivery {
  return instagramDelivery(appSecret, {
    object: 'instagram',
    entry: [{ id: comment.accountId, time: comment.time, changes: [{ field: 'comments', value: { id: comment.id, text: comment.text, from: comment.from, media: comment.media } }] }],
  });
}

/**
 * The messaging event Meta sends for a direct message to the account (`fake.receiveMessage`); with
 * `isEcho`, the copy Meta sends of a message the account itself sent (sender and recipient swapped).
 */
export function instagramMessageDelivery(appSecret: string, message: InstagramMessage, opts: { isEcho?: boolean } = {}): SignedDelivery {
  const [sender, recipient] = opts.isEcho ? [message.recipientId, message.senderId] : [message.senderId, message.recipientId];
  return instagramDelivery(appSecret, {
    object: 'instagram',
    entry: [{
      id: message.recipientId,
      time: Math.floor(message.timestamp / 1000),
      messaging: [{ sender: { id: sender }, recipient: { id: recipient }, timestamp: message.timestamp, message: { mid: message.mid, text: message.text, ...(opts.isEcho ? { is_echo: true } : {}) } }],
    }],
  });
}

/** Meta's subscription check: the query of `GET <callback>?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. */
export function instagramVerificationQuery(verifyToken: string, challenge = '1158201444'): URLSearchParams {
  return new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': verifyToken, 'hub.challenge': challenge });
}

/** Any Account Activity payload, signed. */
export function xDelivery(consumerSecret: string, payload: unknown): SignedDelivery {
  const body = JSON.stringify(payload);
  return { body, payload, headers: { 'Content-Type': 'application/json', 'x-twitter-webhooks-signature': xSignature(consumerSecret, body) } };
}

/** A v1.1 `created_at`: "Wed Oct 10 20:19:24 +0000 2018". */
function v1Time(date: Date): string {
  // toUTCString: "Wed, 10 Oct 2018 20:19:24 GMT".
  const [day, dd, month, yyyy, time] = date.toUTCString().replace(',', '').split(' ');
  return `${day} ${month} ${dd} ${time} +0000 ${yyyy}`;
}

export interface XDirectMessage {
  /** The DM event's id; a fresh one when absent. */
  id?: string;
  senderId: string;
  senderScreenName?: string;
  recipientId: string;
  text: string;
  createdAt?: Date;
}

let dmSeq = 0;

/**
 * A `message_create` event for the account `forUserId`: a DM to it, or (sender = `forUserId`) the
 * copy X delivers of a DM the account sent itself.
 */
export function xDirectMessageDelivery(consumerSecret: string, forUserId: string, dm: XDirectMessage): SignedDelivery {
  dmSeq += 1;
  const id = dm.id ?? `18${Date.now()}${String(dmSeq).padStart(5, '0')}`;
  const user = (userId: string, screenName: string) => ({ id: userId, created_timestamp: '1422556069340', name: screenName, screen_name: screenName, protected: false, verified: false, followers_count: 10, friends_count: 10, statuses_count: 10 });
  return xDelivery(consumerSecret, {
    for_user_id: forUserId,
    direct_message_events: [{
      type: 'message_create',
      id,
      created_timestamp: String((dm.createdAt ?? new Date()).getTime()),
      message_create: { target: { recipient_id: dm.recipientId }, sender_id: dm.senderId, message_data: { text: dm.text, entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] } } },
    }],
    users: {
      [dm.senderId]: user(dm.senderId, dm.senderScreenName ?? (dm.senderId === forUserId ? 'luna_grows' : 'a_follower')),
      [dm.recipientId]: user(dm.recipientId, dm.recipientId === forUserId ? 'luna_grows' : 'a_follower'),
    },
  });
}

/** A `tweet_create_events` delivery of a mention of the account (`fake.addMention`). */
export function xMentionDelivery(consumerSecret: string, mention: XMention): SignedDelivery {
  return xDelivery(consumerSecret, {
    for_user_id: mention.mentionedId,
    user_has_blocked: false,
    tweet_create_events: [{
      created_at: v1Time(mention.createdAt),
      id: Number(mention.id),
      id_str: mention.id,
      text: mention.text,
      in_reply_to_status_id_str: mention.inReplyToTweetId,
      in_reply_to_user_id_str: mention.inReplyToTweetId ? mention.mentionedId : null,
      user: { id_str: mention.authorId, screen_name: mention.authorUsername, name: mention.authorName },
      entities: { hashtags: [], urls: [], user_mentions: [{ id_str: mention.mentionedId }] },
    }],
  });
}

/** What the service must answer X's CRC check (`GET <webhook>?crc_token=…`) with. */
export function xCrcExpected(consumerSecret: string, crcToken: string): { response_token: string } {
  return { response_token: `sha256=${createHmac('sha256', consumerSecret).update(crcToken).digest('base64')}` };
}

/** POSTs a delivery to the service's webhook route as the platform would. */
export function deliver(url: string, delivery: SignedDelivery, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...delivery.headers, ...headers }, body: delivery.body });
}
