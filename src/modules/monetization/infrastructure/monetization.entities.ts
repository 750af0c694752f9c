import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { PlatformName } from '../../../core/index.js';
import type { RevenueSource } from '../domain/revenue.js';

/** Row of `affiliate_links` (migration 1733520000000). `click_count` is a bigint: the driver answers a string. */
@Entity('affiliate_links')
export class AffiliateLinkEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'workspace_id' }) workspaceId!: string;
  @Column('text', { name: 'character_id' }) characterId!: string;
  @Column('text', { nullable: true }) platform!: PlatformName | null;
  @Column('text', { name: 'destination_url' }) destinationUrl!: string;
  @Column('text') shortcode!: string;
  @Column('bigint', { name: 'click_count' }) clickCount!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

/** Row of `revenue_entries` (migration 1733520000000). `amount` is a bigint: the driver answers a string. */
@Entity('revenue_entries')
export class RevenueEntryEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'workspace_id' }) workspaceId!: string;
  @Column('text', { name: 'character_id' }) characterId!: string;
  @Column('text') source!: RevenueSource;
  @Column('bigint') amount!: string;
  @Column('text') currency!: string;
  @Column('timestamptz', { name: 'occurred_at' }) occurredAt!: Date;
  @Column('text', { nullable: true }) note!: string | null;
  @Column('text', { name: 'link_id', nullable: true }) linkId!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
}
