import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { MotionAspectRatio, MotionFailure, MotionSource, MotionTransferStatus } from '../domain/motion-transfer.js';

/** Row of `motion_transfers` (migration 1732300001000). */
@Entity('motion_transfers')
export class MotionTransferEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'workspace_id' }) workspaceId!: string;
  @Column('text', { name: 'character_id' }) characterId!: string;
  @Column('text', { name: 'job_id' }) jobId!: string;
  @Column('text') status!: MotionTransferStatus;
  @Column('text') source!: MotionSource;
  @Column('text', { name: 'reference_video_url', nullable: true }) referenceVideoUrl!: string | null;
  @Column('text', { name: 'source_key', nullable: true }) sourceKey!: string | null;
  @Column('integer', { name: 'duration_seconds' }) durationSeconds!: number;
  @Column('text', { name: 'aspect_ratio' }) aspectRatio!: MotionAspectRatio;
  @Column('text', { name: 'video_key', nullable: true }) videoKey!: string | null;
  @Column('text', { name: 'video_url', nullable: true }) videoUrl!: string | null;
  @Column('text', { name: 'thumbnail_key', nullable: true }) thumbnailKey!: string | null;
  @Column('text', { name: 'thumbnail_url', nullable: true }) thumbnailUrl!: string | null;
  @Column('integer', { name: 'credits_charged' }) creditsCharged!: number;
  @Column('jsonb', { nullable: true }) error!: MotionFailure | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}
