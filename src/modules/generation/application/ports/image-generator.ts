import type { CharacterBrief, GeneratedMedia } from './media.js';

/** A character's trained LoRA, applied to every image made for it while it is ready. */
export interface ImageLora {
  /** Our `lora_` id: the job result names it. */
  id: string;
  baseModel: 'flux-dev' | 'sdxl';
  /** Written into the prompt: what makes the model draw the trained character. */
  triggerWord: string;
  /** How strongly the weights apply (Replicate's `lora_scale`; the local blend). */
  scale: number;
  /** The provider's weights (Replicate: the training output's `weights` URL); null for an offline LoRA. */
  weightsUrl: string | null;
  /** The offline trainer's style vector (the local generator applies it); null for a provider LoRA. */
  style: number[] | null;
}

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
  /** The character's ready LoRA, when it has one. */
  lora?: ImageLora;
}

/**
 * Makes images. Adapters: Replicate predictions API, local deterministic PNG renderer. A router
 * (self-hosted GPU endpoints with fallback) can implement this same port and wrap another.
 */
export abstract class ImageGenerator {
  /** Who draws: `replicate`, `local`; a job's result names it (contract §13). */
  abstract readonly provider: string;
  abstract generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]>;
}
