import type { Platform } from '../../../core/index.js';

/** The platforms whose comments and direct messages a character can answer. */
export const RESPONDER_PLATFORMS = ['instagram', 'twitter', 'youtube'] as const satisfies readonly Platform[];
export type ResponderPlatform = (typeof RESPONDER_PLATFORMS)[number];

export const RESPONDER_MODES = ['auto', 'review'] as const;
export type ResponderMode = (typeof RESPONDER_MODES)[number];

export const MIN_REPLIES_PER_HOUR = 1;
export const MAX_REPLIES_PER_HOUR = 200;
export const MAX_DELAY_SECONDS = 3600;
export const MAX_GREETING_LENGTH = 500;
export const MAX_BANNED_TOPICS = 50;
export const MAX_BANNED_TOPIC_LENGTH = 80;

/** A character's responder: off until its owner turns it on (docs/engagement.md). */
export interface ResponderSettings {
  enabled: boolean;
  platformsEnabled: ResponderPlatform[];
  maxRepliesPerHour: number;
  responseDelaySeconds: number;
  greetingMessage: string | null;
  bannedTopics: string[];
  mode: ResponderMode;
  updatedAt: Date | null;
}

export const DEFAULT_RESPONDER: ResponderSettings = {
  enabled: false,
  platformsEnabled: [],
  maxRepliesPerHour: 20,
  responseDelaySeconds: 60,
  greetingMessage: null,
  bannedTopics: [],
  mode: 'review',
  updatedAt: null,
};

/** A change to the settings: what is absent keeps its value. */
export type ResponderPatch = Partial<Omit<ResponderSettings, 'updatedAt'>>;

/** The settings after `patch`, on top of the current ones (the defaults while none were saved). */
export function patchedResponder(current: ResponderSettings, patch: ResponderPatch): Omit<ResponderSettings, 'updatedAt'> {
  const base = current.updatedAt === null ? DEFAULT_RESPONDER : current;
  return {
    enabled: patch.enabled ?? base.enabled,
    platformsEnabled: patch.platformsEnabled ?? base.platformsEnabled,
    maxRepliesPerHour: patch.maxRepliesPerHour ?? base.maxRepliesPerHour,
    responseDelaySeconds: patch.responseDelaySeconds ?? base.responseDelaySeconds,
    greetingMessage: patch.greetingMessage === undefined ? base.greetingMessage : patch.greetingMessage || null,
    bannedTopics: patch.bannedTopics ? [...new Set(patch.bannedTopics)] : base.bannedTopics,
    mode: patch.mode ?? base.mode,
  };
}

export function isResponderPlatform(value: string): value is ResponderPlatform {
  return (RESPONDER_PLATFORMS as readonly string[]).includes(value);
}

/** Lower case, accents dropped, anything but letters and digits a single space: how topics and messages are compared. */
export function normalise(text: string): string {
  return ` ${text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim()} `;
}

/**
 * The banned topic a message touches, or null. A topic matches as whole words (and a trailing `s`),
 * case and accents aside: `crypto` matches "Crypto?" and "cryptos", not "cryptography".
 */
export function bannedTopicIn(text: string, topics: readonly string[]): string | null {
  const haystack = normalise(text);
  for (const topic of topics) {
    const needle = normalise(topic).trim();
    if (needle === '') continue;
    if (haystack.includes(` ${needle} `) || haystack.includes(` ${needle}s `)) return topic;
  }
  return null;
}

/**
 * Why a drafted reply waits for a person instead of going out. `draft_failed`: the text generator
 * could not write one (it refused, or answered unusably, or kept failing), so a person writes it.
 */
export const REVIEW_REASONS = ['review_mode', 'banned_topic', 'paused', 'draft_failed'] as const;
export type ReviewReason = (typeof REVIEW_REASONS)[number];

/** What the responder does with a new message from the audience. */
export type ReplyPlan =
  | { kind: 'none'; why: 'responder_off' | 'platform_off' | 'conversation_paused' | 'conversation_closed' }
  | { kind: 'review'; reason: ReviewReason; topic: string | null }
  | { kind: 'auto' };

/**
 * How the responder files its reply to a message the plan answers: queued to go out (auto), or
 * waiting for a person, and why. A reply the text generator could not write always waits.
 */
export function filing(plan: Exclude<ReplyPlan, { kind: 'none' }>, written: boolean): { status: 'queued' | 'pending_review'; reviewReason: ReviewReason | null } {
  if (!written) return { status: 'pending_review', reviewReason: 'draft_failed' };
  if (plan.kind === 'review') return { status: 'pending_review', reviewReason: plan.reason };
  return { status: 'queued', reviewReason: null };
}

/** The ordered checks: is the responder on here, is the conversation answering, then review or auto. */
export function planReply(settings: ResponderSettings, platform: Platform, conversationStatus: string, text: string): ReplyPlan {
  if (!settings.enabled) return { kind: 'none', why: 'responder_off' };
  if (!(settings.platformsEnabled as readonly string[]).includes(platform)) return { kind: 'none', why: 'platform_off' };
  if (conversationStatus === 'paused') return { kind: 'none', why: 'conversation_paused' };
  if (conversationStatus === 'closed') return { kind: 'none', why: 'conversation_closed' };
  const topic = bannedTopicIn(text, settings.bannedTopics);
  if (topic !== null) return { kind: 'review', reason: 'banned_topic', topic };
  if (settings.mode === 'review') return { kind: 'review', reason: 'review_mode', topic: null };
  return { kind: 'auto' };
}

const HOUR_MS = 3_600_000;

/**
 * When an auto reply may go out: after the delay, and not before an hour has passed since the
 * `cap`-th latest auto reply, so no hour ever holds more than `cap` of them. `scheduled` are the
 * send times of the character's auto replies already queued or sent, latest first (at least `cap`
 * of them when there are that many). Replies are given times in order, under a lock, so the
 * times only grow and the cap-th latest one is the one that bounds the next.
 */
export function nextSendAt(now: Date, delaySeconds: number, cap: number, scheduled: readonly Date[]): Date {
  const earliest = now.getTime() + delaySeconds * 1000;
  const latest = scheduled[0]?.getTime() ?? -Infinity;
  const bound = scheduled.length >= cap ? scheduled[cap - 1].getTime() + HOUR_MS : -Infinity;
  return new Date(Math.max(earliest, bound, latest));
}

/** The longest reply each platform takes, by channel (Instagram comment 2,200, DM 1,000; X post 280, DM 10,000; YouTube comment 10,000). */
export function replyLimit(platform: Platform, channel: 'comment' | 'dm'): number {
  if (platform === 'instagram') return channel === 'comment' ? 2200 : 1000;
  if (platform === 'twitter') return channel === 'comment' ? 280 : 10_000;
  return 10_000;
}
