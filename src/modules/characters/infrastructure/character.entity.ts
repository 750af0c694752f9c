import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Appearance, Identity, Personality, Settings, Style } from '../domain/character.js';

/** Row of `characters`. Only this context maps it; others go through the facade. */
@Entity('characters')
export class CharacterEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'workspace_id' }) workspaceId!: string;
  @Column('text') name!: string;
  @Column('text') niche!: string;
  @Column('jsonb') appearance!: Appearance;
  @Column('jsonb') identity!: Identity;
  @Column('jsonb') personality!: Personality;
  @Column('jsonb') style!: Style;
  @Column('jsonb') settings!: Settings;
  @Column('jsonb', { name: 'reference_images' }) referenceImages!: string[];
  @Column('boolean', { name: 'talking_head_enabled' }) talkingHeadEnabled!: boolean;
  @Column('boolean') autopilot!: boolean;
  @Column('text', { name: 'face_consistency_tier' }) faceConsistencyTier!: string;
  @Column('text', { name: 'lora_training_status' }) loraTrainingStatus!: string;
  @Column('integer', { name: 'content_count' }) contentCount!: number;
  @Column('integer', { name: 'follower_count' }) followerCount!: number;
  @Column('timestamptz', { name: 'last_post_date', nullable: true }) lastPostDate!: Date | null;
  @Column('boolean', { name: 'is_default' }) isDefault!: boolean;
  @Column('text', { nullable: true }) timezone!: string | null;
  @Column('real', { name: 'face_embedding', array: true, nullable: true, select: false }) faceEmbedding!: number[] | null;
  @Column('timestamptz', { name: 'face_embedding_updated_at', nullable: true }) faceEmbeddingUpdatedAt!: Date | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}
