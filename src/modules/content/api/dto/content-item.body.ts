import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { pageBody, type Page } from '../../../../core/index.js';
import { toJobBody, type JobRecord } from '../../../../platform/queue/index.js';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import { JobDoc } from '../../../../platform/http/index.js';
import type { Ordered } from '../../application/content-generation.service.js';
import type { Calendar } from '../../application/content-query.service.js';
import type { ItemView } from '../../application/content-views.js';
import type { ContentItem, StoredMedia, Variant } from '../../domain/content-item.js';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** A medium as clients see it: its URLs signed afresh from the stored keys (records keep no signed URL). */
export function toMediaBody(m: StoredMedia, urls: MediaUrls): Record<string, unknown> {
  const body: Record<string, unknown> = {
    index: m.index, kind: m.kind, url: urls.sign(m.key), width: m.width, height: m.height, review_status: m.reviewStatus,
  };
  if (m.kind === 'video') {
    body.thumbnail_url = urls.signOrNull(m.thumbnailKey);
    body.duration_seconds = m.durationSeconds ?? null;
  }
  return body;
}

/** The wire shape of a content item (contract §6), without its job. */
export function toContentItemFields(item: ContentItem, urls: MediaUrls): Record<string, unknown> {
  return {
    id: item.id,
    character_id: item.characterId,
    status: item.status,
    platform: item.platform,
    content_type: item.contentType,
    image_prompt: item.imagePrompt,
    caption: item.caption,
    hashtags: item.hashtags,
    cta: item.cta,
    media: item.media.map((m) => toMediaBody(m, urls)),
    variants_locked: item.variantsLocked,
    planned_for: iso(item.plannedFor),
    rejection_reason: item.rejectionReason,
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
    published_at: iso(item.publishedAt),
  };
}

/** The wire shape of a content item (contract §6) plus its current job, as reads and events show it. */
export function toContentItemBody(item: ContentItem, job: JobRecord | null, urls: MediaUrls): Record<string, unknown> {
  return { ...toContentItemFields(item, urls), job: job ? toJobBody(job, urls) : null };
}

export function toItemBody({ item, job }: ItemView, urls: MediaUrls): Record<string, unknown> {
  return toContentItemBody(item, job, urls);
}

/** A new order: the item and the job that will make it, the job once (beside the item, not inside it). */
export function toOrderedBody({ item, job }: Ordered, urls: MediaUrls): { item: Record<string, unknown>; job: Record<string, unknown> } {
  return { item: toContentItemFields(item, urls), job: { ...toJobBody(job) } };
}

export function toItemPageBody(page: Page<ItemView>, urls: MediaUrls): Record<string, unknown> {
  return pageBody('items', { ...page, items: page.items.map((v) => toItemBody(v, urls)) });
}

export function toCalendarBody(c: Calendar, urls: MediaUrls): Record<string, unknown> {
  return {
    from: c.from,
    to: c.to,
    timezone: c.timezone,
    days: c.days.map((d) => ({ date: d.date, items: d.items.map((v) => toItemBody(v, urls)), scheduled_posts: d.scheduledPosts.map((p) => p.body) })),
  };
}

export function toVariantBody(v: Variant): Record<string, unknown> {
  return { index: v.index, style: v.style, caption: v.caption, hashtags: v.hashtags, cta: v.cta, selected: v.selected };
}

/** The video status route's view of a video item (contract §6). */
export function toVideoStatusBody(item: ContentItem, job: JobRecord | null, urls: MediaUrls): Record<string, unknown> {
  const video = item.media.find((m) => m.kind === 'video');
  return {
    id: item.id,
    status: item.status,
    job: job ? toJobBody(job, urls) : null,
    video: video
      ? { url: urls.sign(video.key), thumbnail_url: urls.signOrNull(video.thumbnailKey), duration_seconds: video.durationSeconds ?? item.video?.durationSeconds ?? null, aspect_ratio: item.video?.aspectRatio ?? null }
      : null,
  };
}

// Documentation shapes for the OpenAPI document (the job record's is shared: platform/http JobDoc).

export class MediaDoc {
  @ApiProperty({ type: 'integer' }) index!: number;
  @ApiProperty({ enum: ['image', 'video'] }) kind!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: 'integer' }) width!: number;
  @ApiProperty({ type: 'integer' }) height!: number;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected'] }) review_status!: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Video media only.' }) thumbnail_url?: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Video media only.' }) duration_seconds?: number | null;
}

/** A content item as a new order answers it: its job stands beside it in the envelope. */
export class NewContentItemDoc {
  @ApiProperty({ example: 'cnt_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty() character_id!: string;
  @ApiProperty({ enum: ['queued', 'generating', 'ready', 'approved', 'rejected', 'published', 'failed'] }) status!: string;
  @ApiProperty({ example: 'instagram' }) platform!: string;
  @ApiProperty({ enum: ['single', 'carousel', 'story', 'video', 'reel', 'short'] }) content_type!: string;
  @ApiProperty() image_prompt!: string;
  @ApiProperty({ type: String, nullable: true }) caption!: string | null;
  @ApiProperty({ type: [String] }) hashtags!: string[];
  @ApiProperty({ type: String, nullable: true }) cta!: string | null;
  @ApiProperty({ type: [MediaDoc] }) media!: MediaDoc[];
  @ApiProperty() variants_locked!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) planned_for!: string | null;
  @ApiProperty({ type: String, nullable: true }) rejection_reason!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) published_at!: string | null;
}

/** A content item as reads, lists and socket events show it: with its current job. */
export class ContentItemDoc extends NewContentItemDoc {
  @ApiProperty({ type: JobDoc, nullable: true, description: 'The item’s current job.' }) job!: JobDoc | null;
}

export class ItemEnvelope {
  @ApiProperty({ type: ContentItemDoc }) item!: ContentItemDoc;
}

export class ItemAndJobEnvelope {
  @ApiProperty({ type: NewContentItemDoc, description: 'The new item, without a copy of its job (the job is beside it).' }) item!: NewContentItemDoc;
  @ApiProperty({ type: JobDoc }) job!: JobDoc;
}

export class JobEnvelope {
  @ApiProperty({ type: JobDoc }) job!: JobDoc;
}

export class ItemListDoc {
  @ApiProperty({ type: [ContentItemDoc] }) items!: ContentItemDoc[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

class CalendarDayDoc {
  @ApiProperty({ example: '2024-07-15' }) date!: string;
  @ApiProperty({ type: [ContentItemDoc] }) items!: ContentItemDoc[];
  @ApiProperty({ type: [Object], description: 'Scheduled posts of the day.' }) scheduled_posts!: Array<Record<string, unknown>>;
}

export class CalendarDoc {
  @ApiProperty({ example: '2024-07-15' }) from!: string;
  @ApiProperty({ example: '2024-07-21' }) to!: string;
  @ApiProperty({ example: 'America/New_York' }) timezone!: string;
  @ApiProperty({ type: [CalendarDayDoc] }) days!: CalendarDayDoc[];
}

class VariantDoc {
  @ApiProperty({ type: 'integer' }) index!: number;
  @ApiProperty({ enum: ['story-led', 'question-led', 'cta-led', 'punchy'] }) style!: string;
  @ApiProperty() caption!: string;
  @ApiProperty({ type: [String] }) hashtags!: string[];
  @ApiProperty() cta!: string;
  @ApiProperty() selected!: boolean;
}

export class VariantsDoc {
  @ApiProperty({ type: [VariantDoc] }) variants!: VariantDoc[];
}

export class ItemAndVariantsDoc {
  @ApiProperty({ type: ContentItemDoc }) item!: ContentItemDoc;
  @ApiProperty({ type: [VariantDoc] }) variants!: VariantDoc[];
}

class VideoDoc {
  @ApiProperty() url!: string;
  @ApiProperty({ type: String, nullable: true }) thumbnail_url!: string | null;
  @ApiProperty() duration_seconds!: number;
  @ApiProperty({ enum: ['9:16', '1:1', '16:9'] }) aspect_ratio!: string;
}

export class VideoStatusDoc {
  @ApiProperty() id!: string;
  @ApiProperty() status!: string;
  @ApiProperty({ type: JobDoc, nullable: true }) job!: JobDoc | null;
  @ApiProperty({ type: VideoDoc, nullable: true }) video!: VideoDoc | null;
}
