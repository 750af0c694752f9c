import { ApiProperty } from '@nestjs/swagger';
import { JobDoc, JobFailureDoc } from '../../../../platform/http/index.js';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import { GENERATION_STATUSES, TH_ASPECT_RATIOS, type TalkingHeadGeneration } from '../../domain/talking-head.js';

/** The wire shape of a generation (contract §12), its files as URLs signed afresh. */
export function toGenerationBody(g: TalkingHeadGeneration, urls: MediaUrls): Record<string, unknown> {
  return {
    id: g.id,
    character_id: g.characterId,
    kind: g.kind,
    status: g.status,
    script: g.script,
    aspect_ratio: g.aspectRatio,
    audio_url: urls.signOrNull(g.audioKey),
    video_url: urls.signOrNull(g.videoKey),
    thumbnail_url: urls.signOrNull(g.thumbnailKey),
    duration_seconds: g.durationSeconds,
    content_id: g.contentId,
    credits_charged: g.creditsCharged,
    job_id: g.jobId,
    error: g.error ? { code: g.error.code, message: g.error.message } : null,
    created_at: g.createdAt.toISOString(),
    finished_at: g.finishedAt ? g.finishedAt.toISOString() : null,
  };
}

// Documentation shapes for the OpenAPI document.

export class GenerationDoc {
  @ApiProperty({ example: 'th_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() character_id!: string;
  @ApiProperty({ enum: ['preview', 'full'] }) kind!: string;
  @ApiProperty({ enum: GENERATION_STATUSES }) status!: string;
  @ApiProperty() script!: string;
  @ApiProperty({ enum: TH_ASPECT_RATIOS }) aspect_ratio!: string;
  @ApiProperty({ type: String, nullable: true }) audio_url!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'MP4: H.264 video, AAC audio.' }) video_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) thumbnail_url!: string | null;
  @ApiProperty({ type: Number, nullable: true }) duration_seconds!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'The video content item a completed full generation became.' }) content_id!: string | null;
  @ApiProperty({ type: 'integer' }) credits_charged!: number;
  @ApiProperty() job_id!: string;
  @ApiProperty({ type: JobFailureDoc, nullable: true }) error!: JobFailureDoc | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

class PricingDoc {
  @ApiProperty() estimated_seconds!: number;
  @ApiProperty({ type: 'integer' }) credits!: number;
}

export class GenerationStartedDoc {
  @ApiProperty({ type: GenerationDoc }) generation!: GenerationDoc;
  @ApiProperty({ type: JobDoc, description: 'The talking_head job record.' }) job!: JobDoc;
  @ApiProperty({ type: PricingDoc }) pricing!: PricingDoc;
}

export class GenerationEnvelope {
  @ApiProperty({ type: GenerationDoc }) generation!: GenerationDoc;
}

export class GenerationListDoc {
  @ApiProperty({ type: [GenerationDoc] }) generations!: GenerationDoc[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}
