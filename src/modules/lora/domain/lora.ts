/** The LoRA aggregate: one trained model per character, and the rules of its life (contract §10). Pure. */
import { AppError } from '../../../core/index.js';
import { LORA_BASE_MODELS, type LoraBaseModel } from '../../../config/index.js';

export { LORA_BASE_MODELS, type LoraBaseModel };

export const LORA_JOB = 'train_lora';

export const LORA_STATUSES = ['none', 'queued', 'training', 'ready', 'failed'] as const;
export type LoraStatus = (typeof LORA_STATUSES)[number];

export const MIN_TRAINING_IMAGES = 10;
export const MAX_TRAINING_IMAGES = 30;
export const MAX_TRAINING_IMAGE_BYTES = 10 * 1024 * 1024;
export const TRAINING_STEPS = { min: 1000, max: 1500, default: 1000 } as const;
export const LORA_RANK = { min: 16, max: 32, default: 16 } as const;

/** The moves a LoRA may make; `DELETE` takes any status back to `none` (the row goes). */
const MOVES: Readonly<Record<LoraStatus, readonly LoraStatus[]>> = {
  none: ['queued'],
  queued: ['training', 'failed'],
  training: ['ready', 'failed'],
  ready: ['queued'],
  failed: ['queued'],
};

export function canMove(from: LoraStatus, to: LoraStatus): boolean {
  return MOVES[from].includes(to);
}

/** A training is under way: its images are frozen and a second one is refused. */
export function isTraining(status: LoraStatus): boolean {
  return status === 'queued' || status === 'training';
}

/** The character's face-consistency tier while its LoRA is in `status`. */
export function consistencyTier(status: LoraStatus): 'lora' | 'ip_adapter' {
  return status === 'ready' ? 'lora' : 'ip_adapter';
}

export interface LoraFailure {
  code: string;
  message: string;
}

export interface Lora {
  id: string;
  workspaceId: string;
  characterId: string;
  status: LoraStatus;
  baseModel: LoraBaseModel;
  trainingSteps: number;
  loraRank: number;
  triggerWord: string;
  /** 0-100, as far as the provider says; 100 once ready. */
  progress: number;
  jobId: string;
  /** Which trainer runs it: a webhook or a poll asks that one. */
  provider: 'replicate' | 'local';
  /** The provider's id of the training, once started there; null while queued with us. */
  providerTrainingId: string | null;
  weightsUrl: string | null;
  providerVersion: string | null;
  /** The offline trainer's style vector. */
  style: number[] | null;
  error: LoraFailure | null;
  creditsCharged: number;
  trainedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A training image of a character, stored under our storage keys. */
export interface TrainingImageRecord {
  id: string;
  workspaceId: string;
  characterId: string;
  storageKey: string;
  contentType: string;
  sizeBytes: number;
  width: number;
  height: number;
  createdAt: Date;
}

/** Where a training image's bytes live: one folder per character. */
export function trainingImageKey(characterId: string, imageId: string, ext: string): string {
  return `lora/${characterId}/${imageId}.${ext}`;
}

/**
 * The default trigger word: the name's letters in capitals (at most 12) and the character id's last
 * four characters, e.g. `ZARA_K7Q2`: a token no model knows yet, so it stands for this face only.
 */
export function defaultTriggerWord(name: string, characterId: string): string {
  const letters = name.normalize('NFKD').replace(/[^A-Za-z]/g, '').toUpperCase().slice(0, 12) || 'PERSONA';
  return `${letters}_${characterId.slice(-4).toUpperCase()}`;
}

/** The caption of every training image: the trigger word written by us, so no auto-captioner can leave it out. */
export function trainingCaption(triggerWord: string, look: string | undefined): string {
  return look ? `a photo of ${triggerWord}, ${look}` : `a photo of ${triggerWord}`;
}

/** The facts a training decision depends on, read under the character's lock. */
export interface TrainFacts {
  status: LoraStatus;
  imageCount: number;
}

/**
 * Why a training must be refused, or null: after the plan (the route's) and the base model (the
 * body's), a training under way 409, then the image count 409. Credits (402) are the debit's.
 */
export function trainRefusal(f: TrainFacts): AppError | null {
  if (isTraining(f.status)) {
    return new AppError('training_in_progress', `A training of this character is already ${f.status}.`, { status: f.status });
  }
  if (f.imageCount < MIN_TRAINING_IMAGES || f.imageCount > MAX_TRAINING_IMAGES) {
    return new AppError(
      'insufficient_training_images',
      `A training needs ${MIN_TRAINING_IMAGES} to ${MAX_TRAINING_IMAGES} images; the character has ${f.imageCount}.`,
      { required_min: MIN_TRAINING_IMAGES, required_max: MAX_TRAINING_IMAGES, image_count: f.imageCount },
    );
  }
  return null;
}

/** Why adding `adding` images must be refused, or null: never while training, never past 30 in all. */
export function addImagesRefusal(status: LoraStatus, current: number, adding: number): AppError | null {
  if (isTraining(status)) {
    return new AppError('training_in_progress', `The training images cannot change while a training is ${status}.`, { status });
  }
  if (current + adding > MAX_TRAINING_IMAGES) {
    return new AppError('training_image_limit', `A character holds at most ${MAX_TRAINING_IMAGES} training images; it has ${current} and this adds ${adding}.`, {
      limit: MAX_TRAINING_IMAGES,
      image_count: current,
      adding,
    });
  }
  return null;
}

/** Removing an image is refused only while training. */
export function removeImageRefusal(status: LoraStatus): AppError | null {
  return isTraining(status) ? new AppError('training_in_progress', `The training images cannot change while a training is ${status}.`, { status }) : null;
}
