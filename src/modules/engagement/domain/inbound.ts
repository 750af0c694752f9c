import type { ResponderPlatform } from './responder.js';

export type Channel = 'comment' | 'dm';

/** One message from a platform, as a webhook delivery or a read names it. */
export interface InboundMessage {
  platform: ResponderPlatform;
  /** Our connected account the message was sent to (Instagram business account, X user, YouTube channel). */
  accountId: string;
  channel: Channel;
  platformMessageId: string;
  authorId: string;
  authorName: string;
  text: string;
  /** The post, tweet or video commented on; null for a direct message. */
  remotePostId: string | null;
  /** What a reply answers: the comment's own id, or for a direct message the author. */
  replyTarget: string;
  /** Sent by the account itself (an echo of our reply, or written in the platform's app): kept, never answered. */
  own: boolean;
  createdAt: Date;
}

/** A delivery whose shape is not the platform's: refused whole, before anything is stored. */
export class MalformedDelivery extends Error {}

type Json = Record<string, unknown>;

const MAX_TEXT = 20_000;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function str(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  return typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT ? v : null;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function dateOf(v: unknown, fallback: Date): Date {
  const n = typeof v === 'number' ? (v < 1e12 ? v * 1000 : v) : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(n) ? new Date(n) : fallback;
}

/**
 * An Instagram webhook delivery (`object: instagram`): comment changes (`field: comments`, from the
 * Graph API) and Instagram Messaging events (`messaging`). Entries of other fields are skipped; a
 * message without text (a reaction, a sticker) is skipped.
 */
export function parseInstagramDelivery(body: unknown, now = new Date()): InboundMessage[] {
  const root = obj(body);
  if (!root || root.object !== 'instagram' || !Array.isArray(root.entry)) throw new MalformedDelivery('expected {object: "instagram", entry: [...]}');
  const out: InboundMessage[] = [];
  for (const rawEntry of root.entry) {
    const entry = obj(rawEntry);
    const accountId = str(entry?.id);
    if (!entry || !accountId) continue;
    const at = dateOf(entry.time, now);
    for (const change of list(entry.changes)) out.push(...instagramComment(obj(change), accountId, at));
    for (const event of list(entry.messaging)) out.push(...instagramMessage(obj(event), accountId, now));
  }
  return out;
}

function instagramComment(change: Json | null, accountId: string, at: Date): InboundMessage[] {
  if (!change || change.field !== 'comments') return [];
  const value = obj(change.value);
  const id = str(value?.id);
  const text = str(value?.text);
  const from = obj(value?.from);
  const authorId = str(from?.id);
  if (!value || !id || !text || !authorId) return [];
  return [{
    platform: 'instagram', accountId, channel: 'comment', platformMessageId: id, authorId,
    authorName: str(from?.username) ?? '', text, remotePostId: str(obj(value.media)?.id), replyTarget: id,
    own: authorId === accountId, createdAt: at,
  }];
}

function instagramMessage(event: Json | null, accountId: string, now: Date): InboundMessage[] {
  const message = obj(event?.message);
  const mid = str(message?.mid);
  const text = str(message?.text);
  const sender = str(obj(event?.sender)?.id);
  const recipient = str(obj(event?.recipient)?.id);
  if (!event || !message || !mid || !text || !sender) return [];
  const own = message.is_echo === true || sender === accountId;
  const person = own ? recipient : sender;
  if (!person) return [];
  return [{
    platform: 'instagram', accountId, channel: 'dm', platformMessageId: mid, authorId: person,
    authorName: '', text, remotePostId: null, replyTarget: person, own, createdAt: dateOf(event.timestamp, now),
  }];
}

/**
 * An X Account Activity API delivery for `for_user_id`: direct messages (`direct_message_events`,
 * `message_create`) and mentions or replies (`tweet_create_events`). Other events are skipped.
 */
export function parseXDelivery(body: unknown, now = new Date()): InboundMessage[] {
  const root = obj(body);
  const accountId = str(root?.for_user_id);
  if (!root || !accountId) throw new MalformedDelivery('expected an Account Activity event with for_user_id');
  const users = obj(root.users) ?? {};
  const out: InboundMessage[] = [];
  for (const raw of list(root.direct_message_events)) {
    const event = obj(raw);
    const create = obj(event?.message_create);
    const id = str(event?.id);
    const sender = str(create?.sender_id);
    const recipient = str(obj(create?.target)?.recipient_id);
    const text = str(obj(create?.message_data)?.text);
    if (!event || event.type !== 'message_create' || !id || !sender || !text) continue;
    const own = sender === accountId;
    const person = own ? recipient : sender;
    if (!person) continue;
    out.push({
      platform: 'twitter', accountId, channel: 'dm', platformMessageId: id, authorId: person,
      authorName: str(obj(users[person])?.screen_name) ?? '', text, remotePostId: null, replyTarget: person, own,
      createdAt: dateOf(event.created_timestamp, now),
    });
  }
  for (const raw of list(root.tweet_create_events)) {
    const tweet = obj(raw);
    const id = str(tweet?.id_str);
    const user = obj(tweet?.user);
    const authorId = str(user?.id_str);
    const text = str(tweet?.text);
    if (!tweet || !id || !authorId || !text) continue;
    out.push({
      platform: 'twitter', accountId, channel: 'comment', platformMessageId: id, authorId,
      authorName: str(user?.screen_name) ?? '', text, remotePostId: str(tweet.in_reply_to_status_id_str), replyTarget: id,
      own: authorId === accountId, createdAt: dateOf(tweet.created_at, now),
    });
  }
  return out;
}
