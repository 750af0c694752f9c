import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One row of `api_keys` (migration 1732200000000). The secret itself is never stored. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('text', { name: 'user_id' })
  userId!: string;

  @Column('text')
  name!: string;

  @Column('text')
  prefix!: string;

  @Column('text', { name: 'key_hash' })
  keyHash!: string;

  @Column('text', { array: true })
  scopes!: string[];

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt!: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
