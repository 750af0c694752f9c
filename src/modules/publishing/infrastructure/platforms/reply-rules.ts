import type { Platform } from '../../../../core/index.js';
import { PublishFailure, type ReplyRequest } from '../../application/ports/platform-client.js';
import { tweetWeight } from './x-text.js';

/** How long a reply may be on one channel, counted the platform's way; absent: no such channel. */
interface ReplyLimit {
  max: number;
  /** The length as the platform counts it. */
  count: (text: string) => number;
  unit: string;
}

const codePoints = (text: string): number => [...text].length;

/**
 * What each platform takes as a reply (the sandbox checks the same): Instagram comments 2,200
 * characters and messages 1,000 (Messenger Platform), X replies 280 weighted characters and direct
 * messages 10,000, YouTube comments 10,000 characters and no direct messages at all.
 */
const REPLY_LIMITS: Readonly<Record<Platform, Partial<Record<ReplyRequest['channel'], ReplyLimit>>>> = {
  instagram: { comment: { max: 2200, count: codePoints, unit: 'characters' }, dm: { max: 1000, count: codePoints, unit: 'characters' } },
  twitter: { comment: { max: 280, count: tweetWeight, unit: 'weighted characters' }, dm: { max: 10_000, count: codePoints, unit: 'characters' } },
  youtube: { comment: { max: 10_000, count: codePoints, unit: 'characters' } },
  tiktok: {},
  pinterest: {},
};

const LABELS: Readonly<Record<Platform, string>> = { instagram: 'Instagram', tiktok: 'TikTok', twitter: 'X', youtube: 'YouTube', pinterest: 'Pinterest' };

/** Why the platform would refuse this reply before it is sent, or null when it takes it. */
export function replyRefusal(platform: Platform, reply: Pick<ReplyRequest, 'channel' | 'target' | 'text'>): string | null {
  const label = LABELS[platform];
  const limit = REPLY_LIMITS[platform][reply.channel];
  if (!limit) return reply.channel === 'dm' ? `${label} has no direct messages to reply in.` : `${label} comments cannot be answered.`;
  if (reply.target.trim() === '') return `The ${label} ${reply.channel === 'dm' ? 'recipient' : 'comment answered'} is missing.`;
  if (reply.text.trim() === '') return `An empty ${label} reply cannot be sent.`;
  const length = limit.count(reply.text);
  if (length > limit.max) return `${label} takes ${reply.channel === 'dm' ? 'messages' : 'replies'} of at most ${limit.max} ${limit.unit}; this one has ${length}.`;
  return null;
}

/** Refuses, before any call, a reply the platform would refuse (content_rejected, nothing sent). */
export function assertReplyAccepted(platform: Platform, reply: Pick<ReplyRequest, 'channel' | 'target' | 'text'>): void {
  const refusal = replyRefusal(platform, reply);
  if (refusal) throw new PublishFailure('content_rejected', refusal);
}
