import { ApiProperty } from '@nestjs/swagger';
import { JobDoc } from '../../../../platform/http/index.js';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import { MOTION_ASPECT_RATIOS, MOTION_TRANSFER_STATUSES, type MotionTransfer } from '../../domain/motion-transfer.js';

/** The wire shape of a motion transfer, its stored files as URLs signed afresh from their keys. */
export function toMotionTransferBody(mt: MotionTransfer, urls: MediaUrls): Record<string, unknown> {
  return {
    id: mt.id,
    character_id: mt.characterId,
    job_id: mt.jobId,
    status: mt.status,
    source: mt.source,
    reference_video_url: mt.source === 'upload' && mt.sourceKey ? urls.sign(mt.sourceKey) : mt.referenceVideoUrl,
    duration_seconds: mt.durationSeconds,
    aspect_ratio: mt.aspectRatio,
    video_url: urls.signOrNull(mt.videoKey),
    thumbnail_url: urls.signOrNull(mt.thumbnailKey),
    credits_charged: mt.creditsCharged,
    error: mt.error ? { code: mt.error.code, message: mt.error.message } : null,
    created_at: mt.createdAt.toISOString(),
    updated_at: mt.updatedAt.toISOString(),
  };
}

// Documentation shapes for the OpenAPI document.

class MotionFailureBody {
  @ApiProperty({ example: 'validation_failed' }) code!: string;
  @ApiProperty({ example: 'The reference video could not be downloaded: cdn.example.com answered 404.' }) message!: string;
}

export class MotionTransferBody {
  @ApiProperty({ example: 'mt_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ example: 'job_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: 'The motion_transfer job; the status route accepts it too.' }) job_id!: string;
  @ApiProperty({ enum: MOTION_TRANSFER_STATUSES }) status!: string;
  @ApiProperty({ enum: ['url', 'upload'] }) source!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The URL given, or for an upload the URL of the stored copy.' }) reference_video_url!: string | null;
  @ApiProperty({ minimum: 5, maximum: 60 }) duration_seconds!: number;
  @ApiProperty({ enum: MOTION_ASPECT_RATIOS }) aspect_ratio!: string;
  @ApiProperty({ type: String, nullable: true }) video_url!: string | null;
  @ApiProperty({ type: String, nullable: true }) thumbnail_url!: string | null;
  @ApiProperty({ type: 'integer', description: 'Credits taken when accepted; refunded by a new ledger entry if it fails.' }) credits_charged!: number;
  @ApiProperty({ type: MotionFailureBody, nullable: true }) error!: MotionFailureBody | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

class MotionPricingBody {
  @ApiProperty({ type: 'integer', example: 10 }) credits_per_five_seconds!: number;
  @ApiProperty({ example: 20, description: 'ceil(duration_seconds / 5) × credits_per_five_seconds; what was charged.' }) estimated_credits!: number;
}

export class MotionTransferEnvelope {
  @ApiProperty({ type: MotionTransferBody }) motion_transfer!: MotionTransferBody;
  @ApiProperty({ type: JobDoc, description: 'The motion_transfer job record.' }) job!: JobDoc;
}

export class MotionTransferStartedBody extends MotionTransferEnvelope {
  @ApiProperty({ type: MotionPricingBody }) pricing!: MotionPricingBody;
}

export class MotionTransferListBody {
  @ApiProperty({ type: [MotionTransferBody] }) motion_transfers!: MotionTransferBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}
