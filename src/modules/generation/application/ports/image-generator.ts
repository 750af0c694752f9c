import type { CharacterBrief, GeneratedMedia } from './media.js';

export interface ImageRequest {
  /** The job this image belongs to: routers hash it to pick a path deterministically. */
  jobId: string;
  workspaceId: string;
  character: CharacterBrief;
  prompt: string;
  negativePrompt?: string;
  width: number;
  height: number;
  count: number;
  seed?: number;
  /** Image-to-image from this image (our storage bytes), else text-to-image. */
  initImage?: { bytes: Buffer; contentType: string };
  strength?: number;
}

/**
 * Makes images. Adapters: Replicate predictions API, local deterministic PNG renderer. A router
 * (self-hosted GPU endpoints with fallback) can implement this same port and wrap another.
 */
export abstract class ImageGenerator {
  abstract generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]>;
}
