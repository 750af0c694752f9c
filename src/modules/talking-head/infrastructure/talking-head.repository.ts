import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { GenerationFailure, GenerationStatus, TalkingHeadGeneration } from '../domain/talking-head.js';

interface Row {
  id: string;
  workspace_id: string;
  character_id: string;
  kind: TalkingHeadGeneration['kind'];
  status: GenerationStatus;
  script: string;
  aspect_ratio: TalkingHeadGeneration['aspectRatio'];
  audio_key: string | null;
  video_key: string | null;
  thumbnail_key: string | null;
  duration_seconds: number | null;
  content_id: string | null;
  credits_charged: number;
  job_id: string;
  error: GenerationFailure | null;
  created_at: Date;
  finished_at: Date | null;
}

function toGeneration(r: Row): TalkingHeadGeneration {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    characterId: r.character_id,
    kind: r.kind,
    status: r.status,
    script: r.script,
    aspectRatio: r.aspect_ratio,
    audioKey: r.audio_key,
    videoKey: r.video_key,
    thumbnailKey: r.thumbnail_key,
    durationSeconds: r.duration_seconds,
    contentId: r.content_id,
    creditsCharged: r.credits_charged,
    jobId: r.job_id,
    error: r.error,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  };
}

export interface CompletedOutput {
  audioKey: string;
  videoKey: string;
  thumbnailKey: string | null;
  durationSeconds: number;
  contentId: string | null;
}

/** Talking-head generations. Every method takes the workspace id. */
@Injectable()
export class TalkingHeadRepository {
  async insert(m: Tx, g: TalkingHeadGeneration): Promise<void> {
    await m.query(
      `INSERT INTO talking_head_generations (id, workspace_id, character_id, kind, status, script, aspect_ratio, credits_charged, job_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())`,
      [g.id, g.workspaceId, g.characterId, g.kind, g.status, g.script, g.aspectRatio, g.creditsCharged, g.jobId, g.createdAt],
    );
  }

  async find(m: Tx, workspaceId: string, id: string): Promise<TalkingHeadGeneration | null> {
    const rows: Row[] = await m.query('SELECT * FROM talking_head_generations WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
    return rows[0] ? toGeneration(rows[0]) : null;
  }

  async list(m: Tx, workspaceId: string, characterId: string, req: PageRequest): Promise<Page<TalkingHeadGeneration>> {
    const [rows, count]: [Row[], Array<{ n: number }>] = await Promise.all([
      m.query(
        `SELECT * FROM talking_head_generations WHERE workspace_id = $1 AND character_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [workspaceId, characterId, req.pageSize, offsetOf(req)],
      ),
      m.query('SELECT count(*)::int AS n FROM talking_head_generations WHERE workspace_id = $1 AND character_id = $2', [workspaceId, characterId]),
    ]);
    return { items: rows.map(toGeneration), page: req.page, pageSize: req.pageSize, total: count[0]?.n ?? 0 };
  }

  /** queued → running (a re-delivered run finds it running and goes on). */
  async start(m: Tx, workspaceId: string, id: string): Promise<void> {
    await m.query(`UPDATE talking_head_generations SET status = 'running', updated_at = now() WHERE workspace_id = $1 AND id = $2 AND status = 'queued'`, [workspaceId, id]);
  }

  /** Ends a generation once (completed or failed); null when it had already ended. */
  async end(m: Tx, workspaceId: string, id: string, end: ({ status: 'completed' } & CompletedOutput) | { status: 'failed'; error: GenerationFailure }): Promise<TalkingHeadGeneration | null> {
    const done = end.status === 'completed' ? end : null;
    const rows: Row[] = await m.query(
      `WITH ended AS (UPDATE talking_head_generations SET status = $3, audio_key = $4, video_key = $5, thumbnail_key = $6, duration_seconds = $7,
         content_id = $8, error = $9::jsonb, finished_at = now(), updated_at = now()
         WHERE workspace_id = $1 AND id = $2 AND status IN ('queued', 'running') RETURNING *) SELECT * FROM ended`,
      [workspaceId, id, end.status, done?.audioKey ?? null, done?.videoKey ?? null, done?.thumbnailKey ?? null, done?.durationSeconds ?? null,
        done?.contentId ?? null, end.status === 'failed' ? JSON.stringify(end.error) : null],
    );
    return rows[0] ? toGeneration(rows[0]) : null;
  }

  async fileKeysOfCharacter(m: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const rows: Array<{ audio_key: string | null; video_key: string | null; thumbnail_key: string | null }> = await m.query(
      'SELECT audio_key, video_key, thumbnail_key FROM talking_head_generations WHERE workspace_id = $1 AND character_id = $2',
      [workspaceId, characterId],
    );
    return rows.flatMap((r) => [r.audio_key, r.video_key, r.thumbnail_key].filter((k): k is string => !!k));
  }
}
