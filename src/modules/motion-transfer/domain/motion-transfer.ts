/** The motion-transfer aggregate: a character's look moved onto the motion of a reference video. Pure rules. */
import { AppError } from '../../../core/index.js';

export const MOTION_TRANSFER_JOB = 'motion_transfer';

export const MOTION_TRANSFER_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type MotionTransferStatus = (typeof MOTION_TRANSFER_STATUSES)[number];

export const MOTION_ASPECT_RATIOS = ['9:16', '1:1', '16:9'] as const;
export type MotionAspectRatio = (typeof MOTION_ASPECT_RATIOS)[number];

export type MotionSource = 'url' | 'upload';

export const MIN_DURATION_SECONDS = 5;
export const MAX_DURATION_SECONDS = 60;
/** Two started five-second blocks: the same price as the interface's 8-second video default. */
export const DEFAULT_DURATION_SECONDS = 10;
export const DEFAULT_ASPECT_RATIO: MotionAspectRatio = '9:16';
export const MAX_REFERENCE_VIDEO_BYTES = 100 * 1024 * 1024;

export interface MotionFailure {
  code: string;
  message: string;
}

export interface MotionTransfer {
  id: string;
  workspaceId: string;
  characterId: string;
  jobId: string;
  status: MotionTransferStatus;
  source: MotionSource;
  /** The client's URL, or for an upload the URL of our stored copy. */
  referenceVideoUrl: string | null;
  /** Where the driving video's bytes are in our storage; for a URL, set once downloaded. */
  sourceKey: string | null;
  durationSeconds: number;
  aspectRatio: MotionAspectRatio;
  videoKey: string | null;
  videoUrl: string | null;
  thumbnailKey: string | null;
  thumbnailUrl: string | null;
  creditsCharged: number;
  error: MotionFailure | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Credits for a transfer: the price for every started five seconds. */
export function motionTransferCredits(durationSeconds: number, pricePerFiveSeconds: number): number {
  return Math.ceil(durationSeconds / 5) * pricePerFiveSeconds;
}

const NEXT: Readonly<Record<MotionTransferStatus, readonly MotionTransferStatus[]>> = {
  queued: ['processing', 'failed'],
  processing: ['completed', 'failed'],
  completed: [],
  failed: [],
};

export function canMove(from: MotionTransferStatus, to: MotionTransferStatus): boolean {
  return NEXT[from].includes(to);
}

/** Throws 409 `invalid_state_transition` when `to` cannot follow `from`. */
export function assertMove(from: MotionTransferStatus, to: MotionTransferStatus): void {
  if (!canMove(from, to)) throw AppError.invalidTransition(from, `move a motion transfer to ${to}`);
}

export function isFinished(status: MotionTransferStatus): boolean {
  return NEXT[status].length === 0;
}

/** Storage keys are made from ids only, so a re-delivered job writes over its own objects. */
export const motionKeys = {
  source: (mtId: string, ext: string) => `motion/${mtId}/source.${ext}`,
  output: (mtId: string, jobId: string, ext: string) => `motion/${mtId}/${jobId}-out.${ext}`,
  thumbnail: (mtId: string, jobId: string, ext: string) => `motion/${mtId}/${jobId}-thumb.${ext}`,
};
