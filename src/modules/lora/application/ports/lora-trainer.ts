import type { LoraBaseModel } from '../../../../config/index.js';

/** One training image with its caption; the caption already holds the trigger word. */
export interface TrainingImage {
  /** Stable name stem inside the training set (`001`, `002`, …). */
  name: string;
  bytes: Buffer;
  contentType: string;
  caption: string;
}

export interface TrainingRequest {
  /** Our `lora_` id: adapters tag the training with it. */
  loraId: string;
  workspaceId: string;
  characterId: string;
  baseModel: LoraBaseModel;
  steps: number;
  rank: number;
  triggerWord: string;
  images: TrainingImage[];
}

/** What a finished training left behind: the provider's weights, or the offline trainer's style vector. */
export interface TrainedWeights {
  /** Where the weights can be fetched (Replicate: the training output's `weights`); null offline. */
  weightsUrl: string | null;
  /** The provider's model version the training made (`owner/name:version`), when it made one. */
  version: string | null;
  /** The offline trainer's per-character style vector, applied by the local image generator. */
  style: number[] | null;
}

/** A training as its provider reports it. `progress` is 0-100, when the provider says. */
export type TrainingState =
  | { status: 'starting' | 'processing'; progress: number | null }
  | { status: 'succeeded'; weights: TrainedWeights }
  | { status: 'failed'; error: string }
  | { status: 'canceled' };

/**
 * Trains a LoRA for one character. Adapters: Replicate's trainings API, and an offline trainer that
 * fits a style vector to the images' pixels in this process. `start` answers the provider's id at
 * once; the training then runs at the provider, reported by `status` (and, for Replicate, webhooks).
 */
export abstract class LoraTrainer {
  /** Which provider trains: recorded on the LoRA, so a webhook or a poll asks the right one. */
  abstract readonly provider: 'replicate' | 'local';

  abstract start(req: TrainingRequest, signal?: AbortSignal): Promise<{ providerTrainingId: string }>;

  /** The training's state; null when the provider does not know it (the offline trainer after a restart). */
  abstract status(providerTrainingId: string, signal?: AbortSignal): Promise<TrainingState | null>;

  /** Best effort: asks the provider to stop; a training already finished stays as it is. */
  abstract cancel(providerTrainingId: string): Promise<void>;
}
