import { jobTypes } from '../../../../platform/queue/index.js';

/** The content context's job types. Caption variants are synchronous and have none. */
export const CONTENT_JOBS = {
  image: 'generate_image',
  video: 'generate_video',
  week: 'generate_week',
} as const;

export const CONTENT_JOB_TYPES = jobTypes(CONTENT_JOBS.image, CONTENT_JOBS.video, CONTENT_JOBS.week);

/** The jobs that make one item's media. */
export type ItemJobType = typeof CONTENT_JOBS.image | typeof CONTENT_JOBS.video;

/** What an image job records of its order: the credits paid (a failure refunds them) and the images asked for. */
export interface ImageJobPayload {
  credits: number;
  images: number;
  /** The week plan job that paid for this image, when one did. */
  paid_by?: string;
}

export interface VideoJobPayload {
  credits: number;
  /** The week plan job that paid for this video, when one did. */
  paid_by?: string;
}

/** What a week job's payload carries; the job reads it back. */
export interface WeekJobPayload {
  week: string;
  posts_per_day: number;
  platforms: string[];
  trending_topics: string[];
  guidance: string | null;
  language: string;
  credits: number;
  image_credits: number;
  /** What each video slot's video was paid (absent on weeks planned before week plans made videos). */
  video_credits?: number;
}

declare module '../../../../platform/queue/job-types.js' {
  interface JobPayloads {
    generate_image: ImageJobPayload;
    generate_video: VideoJobPayload;
    generate_week: WeekJobPayload;
  }
}

/** Ledger reasons of this context's credit movements. */
export const LEDGER_REASONS = {
  image: 'content_image',
  video: 'content_video',
  week: 'content_week_plan',
  variants: 'caption_variants',
  refund: 'content_refund',
  weekRefund: 'content_week_plan_refund',
} as const;

/** A whole, non-negative number from a job payload field; anything else is 0. */
export function payloadCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}
