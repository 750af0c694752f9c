import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ContentStatus, ContentType, GenerationKind, StoredMedia, Variant, VideoSpec } from '../domain/content-item.js';

/** Row of `content_items` (migration 1732300000000). Only this context maps it. */
@Entity('content_items')
export class ContentItemEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'workspace_id' }) workspaceId!: string;
  @Column('text', { name: 'character_id' }) characterId!: string;
  @Column('text') status!: ContentStatus;
  @Column('text') platform!: string;
  @Column('text', { name: 'content_type' }) contentType!: ContentType;
  @Column('text') kind!: GenerationKind;
  @Column('text', { name: 'image_prompt' }) imagePrompt!: string;
  @Column('text', { nullable: true }) caption!: string | null;
  @Column('jsonb') hashtags!: string[];
  @Column('text', { nullable: true }) cta!: string | null;
  @Column('jsonb') media!: StoredMedia[];
  @Column('jsonb') variants!: Variant[];
  @Column('boolean', { name: 'variants_locked' }) variantsLocked!: boolean;
  @Column('jsonb', { nullable: true }) video!: VideoSpec | null;
  @Column('text', { nullable: true }) language!: string | null;
  @Column('timestamptz', { name: 'planned_for', nullable: true }) plannedFor!: Date | null;
  @Column('text', { name: 'rejection_reason', nullable: true }) rejectionReason!: string | null;
  @Column('text', { name: 'job_id', nullable: true }) jobId!: string | null;
  @Column('text', { name: 'media_job_id', nullable: true }) mediaJobId!: string | null;
  @Column('text', { name: 'week_job_id', nullable: true }) weekJobId!: string | null;
  @Column('integer', { name: 'plan_index', nullable: true }) planIndex!: number | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
  @Column('timestamptz', { name: 'published_at', nullable: true }) publishedAt!: Date | null;
}
