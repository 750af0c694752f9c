import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { JobFailure, JobStatus } from './job.types.js';

/** The `jobs` table (migrations 1732200000000, 1733310000000). */
@Entity({ name: 'jobs' })
export class JobEntity {
  @PrimaryColumn({ type: 'text' }) id!: string;
  @Column({ name: 'workspace_id', type: 'text' }) workspaceId!: string;
  @Column({ name: 'job_type', type: 'text' }) jobType!: string;
  @Column({ type: 'text' }) status!: JobStatus;
  @Column({ type: 'integer' }) progress!: number;
  @Column({ name: 'character_id', type: 'text', nullable: true }) characterId!: string | null;
  @Column({ name: 'content_id', type: 'text', nullable: true }) contentId!: string | null;
  @Column({ type: 'jsonb' }) payload!: Record<string, unknown>;
  @Column({ type: 'jsonb', nullable: true }) result!: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) error!: JobFailure | null;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true }) finishedAt!: Date | null;
  /** When the failure hook a failed job still owes is tried again; null when nothing is owed. */
  @Column({ name: 'failure_hook_due_at', type: 'timestamptz', nullable: true }) failureHookDueAt!: Date | null;
  @Column({ name: 'failure_hook_tries', type: 'integer', default: 0 }) failureHookTries!: number;
}
