import type { CharacterBrief, GeneratedMedia } from './media.js';

export const ASPECT_RATIOS = ['9:16', '1:1', '16:9'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

export interface VideoRequest {
  jobId: string;
  character: CharacterBrief;
  sceneDescription: string;
  durationSeconds: number;
  aspectRatio: AspectRatio;
  /** The character's primary reference image, when it has one. */
  referenceImage?: { bytes: Buffer; contentType: string };
}

export interface MotionTransferRequest {
  jobId: string;
  character: CharacterBrief;
  characterImage: { bytes: Buffer; contentType: string };
  /** The driving video, already in our storage. */
  referenceVideo: { bytes: Buffer; contentType: string };
  durationSeconds: number;
  aspectRatio: AspectRatio;
}

/** Makes videos (and the thumbnail). Adapters: Replicate-compatible API, local animated file. */
export abstract class VideoGenerator {
  abstract generate(req: VideoRequest, signal?: AbortSignal): Promise<{ video: GeneratedMedia; thumbnail?: GeneratedMedia }>;
  abstract motionTransfer(req: MotionTransferRequest, signal?: AbortSignal): Promise<{ video: GeneratedMedia; thumbnail?: GeneratedMedia }>;
}
