import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ReferenceImageType } from '../domain/character.js';

/** Row of `reference_images`: an uploaded picture of a character and its appearance embedding. */
@Entity('reference_images')
export class ReferenceImageEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'character_id' }) characterId!: string;
  @Column('text', { name: 'workspace_id' }) workspaceId!: string;
  @Column('text') type!: ReferenceImageType;
  @Column('text') url!: string;
  @Column('text', { name: 'storage_key' }) storageKey!: string;
  @Column('text', { name: 'content_type' }) contentType!: string;
  @Column('integer', { name: 'size_bytes' }) sizeBytes!: number;
  @Column('integer') width!: number;
  @Column('integer') height!: number;
  @Column('real', { array: true, nullable: true, select: false }) embedding!: number[] | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}
