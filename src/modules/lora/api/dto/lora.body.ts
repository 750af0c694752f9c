import { ApiProperty } from '@nestjs/swagger';
import { JobDoc } from '../../../../platform/http/index.js';
import type { JobRecord } from '../../../../platform/queue/index.js';
import { toJobBody } from '../../../../platform/queue/index.js';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import type { LoraView } from '../../application/lora.service.js';
import { LORA_BASE_MODELS, LORA_STATUSES, type Lora, type TrainingImageRecord } from '../../domain/lora.js';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** The wire shape of a character's LoRA (contract §10): every field null before the first training. */
export function toLoraBody(characterId: string, lora: Lora | null, imageCount: number): Record<string, unknown> {
  return {
    id: lora?.id ?? null,
    character_id: characterId,
    status: lora?.status ?? 'none',
    base_model: lora?.baseModel ?? null,
    training_steps: lora?.trainingSteps ?? null,
    lora_rank: lora?.loraRank ?? null,
    trigger_word: lora?.triggerWord ?? null,
    image_count: imageCount,
    progress: lora ? lora.progress : null,
    job_id: lora?.jobId ?? null,
    weights_url: lora?.weightsUrl ?? null,
    error: lora?.error ? { code: lora.error.code, message: lora.error.message } : null,
    credits_charged: lora?.creditsCharged ?? null,
    trained_at: iso(lora?.trainedAt ?? null),
    created_at: iso(lora?.createdAt ?? null),
    updated_at: iso(lora?.updatedAt ?? null),
  };
}

export function toLoraEnvelope(view: LoraView): { lora: Record<string, unknown> } {
  return { lora: toLoraBody(view.characterId, view.lora, view.imageCount) };
}

/** The cheap status read: the LoRA's status and progress, and its job. */
export function toLoraStatusBody(view: LoraView): Record<string, unknown> {
  return { status: view.lora?.status ?? 'none', progress: view.lora ? view.lora.progress : 0, job: view.job ? toJobBody(view.job) : null };
}

export function toTrainingImageBody(image: TrainingImageRecord, urls: MediaUrls): Record<string, unknown> {
  return { id: image.id, url: urls.sign(image.storageKey), width: image.width, height: image.height, created_at: image.createdAt.toISOString() };
}

export function toTrainedBody(lora: Lora, imageCount: number, job: JobRecord): Record<string, unknown> {
  return { lora: toLoraBody(lora.characterId, lora, imageCount), job: toJobBody(job) };
}

// Documentation shapes for the OpenAPI document.

class LoraFailureDoc {
  @ApiProperty({ example: 'training_failed' }) code!: string;
  @ApiProperty({ example: 'The training failed at the provider: CUDA out of memory' }) message!: string;
}

export class LoraDoc {
  @ApiProperty({ type: String, nullable: true, example: 'lora_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: 'Null before the first training.' }) id!: string | null;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ enum: LORA_STATUSES }) status!: string;
  @ApiProperty({ enum: LORA_BASE_MODELS, nullable: true }) base_model!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1000, maximum: 1500 }) training_steps!: number | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 16, maximum: 32 }) lora_rank!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'ZARA_K7Q2', description: 'Written into every training caption and every prompt drawn with the LoRA.' }) trigger_word!: string | null;
  @ApiProperty({ description: 'Training images the character holds now (10 to 30 to train).' }) image_count!: number;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, maximum: 100 }) progress!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The train_lora job of the latest training.' }) job_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The provider’s weights once ready; null for a LoRA trained offline.' }) weights_url!: string | null;
  @ApiProperty({ type: LoraFailureDoc, nullable: true }) error!: LoraFailureDoc | null;
  @ApiProperty({ type: 'integer', nullable: true }) credits_charged!: number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) trained_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at!: string | null;
}

export class LoraEnvelope {
  @ApiProperty({ type: LoraDoc }) lora!: LoraDoc;
}

export class LoraTrainedEnvelope {
  @ApiProperty({ type: LoraDoc }) lora!: LoraDoc;
  @ApiProperty({ type: JobDoc, description: 'The train_lora job record.' }) job!: JobDoc;
}

export class LoraStatusDoc {
  @ApiProperty({ enum: LORA_STATUSES }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 }) progress!: number;
  @ApiProperty({ type: JobDoc, nullable: true, description: 'The latest train_lora job record.' }) job!: JobDoc | null;
}

class TrainingImageDoc {
  @ApiProperty({ example: 'limg_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ description: 'A signed URL; it expires.' }) url!: string;
  @ApiProperty({ type: 'integer' }) width!: number;
  @ApiProperty({ type: 'integer' }) height!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class TrainingImagesDoc {
  @ApiProperty({ type: [TrainingImageDoc], description: 'On a list, every image; on an upload, the images it added.' }) images!: TrainingImageDoc[];
  @ApiProperty({ type: 'integer', description: 'Training images the character holds now.' }) image_count!: number;
}
