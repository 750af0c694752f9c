/** Talking heads: a character's face speaking a script in its voice (contract §12). Pure rules. */
import { AppError } from '../../../core/index.js';

export const TALKING_HEAD_JOB = 'talking_head';

export const GENERATION_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];
export type GenerationKind = 'preview' | 'full';

export const TH_ASPECT_RATIOS = ['9:16', '1:1', '16:9'] as const;
export type ThAspectRatio = (typeof TH_ASPECT_RATIOS)[number];

export const MAX_PREVIEW_SCRIPT = 200;
export const MAX_SCRIPT = 2000;
/** Speech runs at about 15 characters a second (contract §12's estimate). */
export const CHARACTERS_PER_SECOND = 15;

export interface GenerationFailure {
  code: string;
  message: string;
}

export interface TalkingHeadGeneration {
  id: string;
  workspaceId: string;
  characterId: string;
  kind: GenerationKind;
  status: GenerationStatus;
  script: string;
  aspectRatio: ThAspectRatio;
  audioKey: string | null;
  videoKey: string | null;
  thumbnailKey: string | null;
  durationSeconds: number | null;
  contentId: string | null;
  creditsCharged: number;
  jobId: string;
  error: GenerationFailure | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface ThPrices {
  preview: number;
  perSecond: number;
  minSeconds: number;
}

/** Seconds of speech a script is estimated at, and what a generation of it costs. */
export function pricing(kind: GenerationKind, script: string, prices: ThPrices): { estimatedSeconds: number; credits: number } {
  const estimatedSeconds = Math.max(1, Math.ceil(script.length / CHARACTERS_PER_SECOND));
  if (kind === 'preview') return { estimatedSeconds, credits: prices.preview };
  return { estimatedSeconds, credits: Math.max(prices.minSeconds, estimatedSeconds) * prices.perSecond };
}

/** The platform a talking head is filed under, by its shape: vertical for TikTok, wide for YouTube, square for Instagram. */
export function platformFor(aspect: ThAspectRatio): string {
  return aspect === '9:16' ? 'tiktok' : aspect === '16:9' ? 'youtube' : 'instagram';
}

/**
 * Why a talking head cannot be made for this character, or null: the feature must be on (409
 * invalid_state_transition), then a primary reference image must exist (409 reference_image_required).
 */
export function talkingHeadRefusal(f: { talkingHeadEnabled: boolean; hasPrimaryImage: boolean }): AppError | null {
  if (!f.talkingHeadEnabled) {
    return new AppError('invalid_state_transition', 'Talking heads are off for this character; set talking_head_enabled first.', { from: 'talking_head_disabled', action: 'talking_head' });
  }
  if (!f.hasPrimaryImage) {
    return new AppError('reference_image_required', 'A talking head needs the character’s primary reference image; upload one to /characters/{id}/reference-images.');
  }
  return null;
}

export const talkingHeadKeys = {
  audio: (id: string, ext: string) => `talking-head/${id}/speech.${ext}`,
  video: (id: string) => `talking-head/${id}/video.mp4`,
  thumbnail: (id: string, ext: string) => `talking-head/${id}/thumb.${ext}`,
};
