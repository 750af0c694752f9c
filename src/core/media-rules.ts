import type { Platform } from './platforms.js';

export type MediaKind = 'image' | 'video';

/** What one platform takes for one content type: the kinds of media, how many, and how long a video may run. */
export interface MediaRule {
  kinds: readonly MediaKind[];
  minItems: number;
  maxItems: number;
  /** Bounds on each video's length, where the platform sets them; media of unknown length are not checked. */
  minSeconds?: number;
  maxSeconds?: number;
}

/** One piece of a post's media, as far as the rules care. */
export interface RuledMedia {
  kind: MediaKind;
  durationSeconds?: number;
}

const ONE_IMAGE: MediaRule = { kinds: ['image'], minItems: 1, maxItems: 1 };
/** Instagram Graph publishes every video as a reel: 3 s to 15 min. */
const INSTAGRAM_REEL: MediaRule = { kinds: ['video'], minItems: 1, maxItems: 1, minSeconds: 3, maxSeconds: 900 };
/** TikTok's Content Posting API takes one video, at most 10 minutes (a creator's own cap may be lower; TikTok says so then). */
const TIKTOK_VIDEO: MediaRule = { kinds: ['video'], minItems: 1, maxItems: 1, maxSeconds: 600 };
/** YouTube Shorts: one video of at most 3 minutes. */
const YOUTUBE_SHORT: MediaRule = { kinds: ['video'], minItems: 1, maxItems: 1, maxSeconds: 180 };

/**
 * The one table of what each platform can publish, per content type (contract §6 for the types;
 * the platforms' own publishing rules for the media). The sandbox and every live adapter check a
 * post against it before anything is sent, so the sandbox refuses exactly what the real platform
 * would; scheduling checks it too, so a refusal shows up as early as it can be known. A content
 * type missing from a platform's row is one it cannot publish at all.
 */
export const MEDIA_RULES: Readonly<Record<Platform, Readonly<Record<string, MediaRule>>>> = {
  instagram: {
    single: ONE_IMAGE,
    carousel: { kinds: ['image', 'video'], minItems: 2, maxItems: 10 },
    story: { kinds: ['image', 'video'], minItems: 1, maxItems: 1, maxSeconds: 60 },
    reel: INSTAGRAM_REEL,
    video: INSTAGRAM_REEL,
    short: INSTAGRAM_REEL,
  },
  tiktok: { short: TIKTOK_VIDEO, video: TIKTOK_VIDEO, reel: TIKTOK_VIDEO },
  youtube: {
    short: YOUTUBE_SHORT,
    reel: YOUTUBE_SHORT,
    // A long-form upload: its length cap depends on the channel's verification, which YouTube checks itself.
    video: { kinds: ['video'], minItems: 1, maxItems: 1 },
  },
  twitter: { single: ONE_IMAGE, carousel: { kinds: ['image'], minItems: 2, maxItems: 4 } },
  pinterest: { single: ONE_IMAGE, carousel: { kinds: ['image'], minItems: 2, maxItems: 5 } },
};

const LABELS: Readonly<Record<Platform, string>> = { instagram: 'Instagram', tiktok: 'TikTok', twitter: 'X', youtube: 'YouTube', pinterest: 'Pinterest' };

export function platformLabel(platform: Platform): string {
  return LABELS[platform];
}

export function mediaRuleFor(platform: Platform, contentType: string): MediaRule | null {
  return Object.prototype.hasOwnProperty.call(MEDIA_RULES[platform], contentType) ? MEDIA_RULES[platform][contentType] : null;
}

/** Whether the platform publishes this content type at all. */
export function publishesContentType(platform: Platform, contentType: string): boolean {
  return mediaRuleFor(platform, contentType) !== null;
}

/** Whether this content type on this platform must be a video (a still image would be refused). */
export function needsVideo(platform: Platform, contentType: string): boolean {
  const rule = mediaRuleFor(platform, contentType);
  return rule !== null && !rule.kinds.includes('image');
}

/**
 * Why the platform would refuse this content type with these media, in words a user can act on;
 * null when it takes them.
 */
export function mediaRefusal(platform: Platform, contentType: string, media: readonly RuledMedia[]): string | null {
  const label = LABELS[platform];
  const rule = mediaRuleFor(platform, contentType);
  if (!rule) return `${label} does not publish ${contentType} posts; it takes ${Object.keys(MEDIA_RULES[platform]).join(', ')}.`;
  const post = `${label} ${contentType} posts`;
  if (media.length < rule.minItems || media.length > rule.maxItems) {
    const wanted = rule.minItems === rule.maxItems ? `exactly ${rule.minItems}` : `${rule.minItems} to ${rule.maxItems}`;
    return `${post} take ${wanted} ${kindsWord(rule, rule.maxItems)}; this one has ${media.length}.`;
  }
  const wrong = media.find((m) => !rule.kinds.includes(m.kind));
  if (wrong) return `${post} take ${kindsWord(rule, 1)} only; this one holds ${wrong.kind === 'image' ? 'a still image' : 'a video'}.`;
  for (const m of media) {
    const seconds = m.kind === 'video' ? m.durationSeconds : undefined;
    if (seconds === undefined || !Number.isFinite(seconds)) continue;
    if (rule.minSeconds !== undefined && seconds < rule.minSeconds) return `${post} run at least ${rule.minSeconds} seconds; this video runs ${seconds}.`;
    if (rule.maxSeconds !== undefined && seconds > rule.maxSeconds) return `${post} run at most ${rule.maxSeconds} seconds; this video runs ${seconds}.`;
  }
  return null;
}

function kindsWord(rule: MediaRule, count: number): string {
  const plural = count === 1 ? '' : 's';
  return rule.kinds.length === 2 ? `image${plural} or video${plural}` : `${rule.kinds[0]}${plural}`;
}
