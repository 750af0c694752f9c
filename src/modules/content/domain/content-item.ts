/** The content item aggregate as this context sees it. Pure types, no framework. */
export const CONTENT_STATUSES = ['queued', 'generating', 'ready', 'approved', 'rejected', 'published', 'failed'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

export const CONTENT_TYPES = ['single', 'carousel', 'story', 'video', 'reel', 'short'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/** What a generation makes for the item: still images, or one video (with its thumbnail). */
export type GenerationKind = 'image' | 'video';

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** One produced file of an item, in our storage under a key derived from the item and its job. */
export interface StoredMedia {
  index: number;
  kind: GenerationKind;
  key: string;
  url: string;
  contentType: string;
  width: number;
  height: number;
  reviewStatus: ReviewStatus;
  thumbnailKey?: string;
  thumbnailUrl?: string;
  durationSeconds?: number;
}

/** Every storage key a media list holds, thumbnails included. */
export function mediaKeysOf(media: readonly StoredMedia[]): string[] {
  return media.flatMap((m) => (m.thumbnailKey ? [m.key, m.thumbnailKey] : [m.key]));
}

export interface Variant {
  index: number;
  style: string;
  caption: string;
  hashtags: string[];
  cta: string;
  selected: boolean;
}

/** What a video item was asked for; kept so a regeneration asks (and charges) the same. */
export interface VideoSpec {
  durationSeconds: number;
  aspectRatio: string;
}

export interface ContentItem {
  id: string;
  workspaceId: string;
  characterId: string;
  status: ContentStatus;
  platform: string;
  contentType: ContentType;
  kind: GenerationKind;
  imagePrompt: string;
  caption: string | null;
  hashtags: string[];
  cta: string | null;
  media: StoredMedia[];
  variants: Variant[];
  variantsLocked: boolean;
  video: VideoSpec | null;
  language: string | null;
  plannedFor: Date | null;
  rejectionReason: string | null;
  /** The item's current job: the one whose result the item waits for or shows. */
  jobId: string | null;
  /** The job whose output the media list holds; a failure of that job refunds nothing. */
  mediaJobId: string | null;
  weekJobId: string | null;
  planIndex: number | null;
  createdAt: Date;
  updatedAt: Date;
  publishedAt: Date | null;
}

export function isContentStatus(value: unknown): value is ContentStatus {
  return typeof value === 'string' && (CONTENT_STATUSES as readonly string[]).includes(value);
}

export function isContentType(value: unknown): value is ContentType {
  return typeof value === 'string' && (CONTENT_TYPES as readonly string[]).includes(value);
}

/** The fields a new item starts with; the caller gives what the request decided. */
export function newContentItem(
  fields: Pick<ContentItem, 'id' | 'workspaceId' | 'characterId' | 'platform' | 'contentType' | 'kind' | 'imagePrompt'> &
    Partial<Pick<ContentItem, 'caption' | 'hashtags' | 'cta' | 'video' | 'language' | 'plannedFor' | 'weekJobId' | 'planIndex'>>,
  now: Date,
): ContentItem {
  return {
    caption: null,
    hashtags: [],
    cta: null,
    video: null,
    language: null,
    plannedFor: null,
    weekJobId: null,
    planIndex: null,
    ...fields,
    status: 'queued',
    media: [],
    variants: [],
    variantsLocked: false,
    rejectionReason: null,
    jobId: null,
    mediaJobId: null,
    createdAt: now,
    updatedAt: now,
    publishedAt: null,
  };
}

/** Length limits of an item's text, shared by request validation and provider output. */
export const LIMITS = {
  prompt: 2000,
  caption: 2200,
  hashtags: 30,
  hashtag: 100,
  cta: 300,
} as const;

/** Provider text is clamped to the same limits a client is held to. */
export function clampText(draft: { caption: string; hashtags: string[]; cta: string }): { caption: string; hashtags: string[]; cta: string } {
  return {
    caption: String(draft.caption ?? '').slice(0, LIMITS.caption),
    hashtags: (Array.isArray(draft.hashtags) ? draft.hashtags : []).map((h) => String(h).slice(0, LIMITS.hashtag)).slice(0, LIMITS.hashtags),
    cta: String(draft.cta ?? '').slice(0, LIMITS.cta),
  };
}
