import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { AudioClip } from '../domain/audio-clip.js';
import type { CharacterVoice, CharacterVoiceSettings, VoiceFailure, VoiceStatus } from '../domain/voice.js';

interface VoiceRow {
  id: string;
  workspace_id: string;
  character_id: string;
  name: string | null;
  clone_voice_id: string | null;
  status: VoiceStatus;
  settings: CharacterVoiceSettings;
  sample_count: number;
  sample_keys: string[];
  error: VoiceFailure | null;
  job_id: string | null;
  credits_charged: number;
  created_at: Date;
  updated_at: Date;
}

function toVoice(r: VoiceRow): CharacterVoice & { sampleKeys: string[] } {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    characterId: r.character_id,
    name: r.name,
    cloneVoiceId: r.clone_voice_id,
    status: r.status,
    settings: r.settings,
    sampleCount: r.sample_count,
    sampleKeys: r.sample_keys,
    error: r.error,
    jobId: r.job_id,
    creditsCharged: r.credits_charged,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface ClipRow {
  id: string;
  workspace_id: string;
  character_id: string;
  kind: AudioClip['kind'];
  status: AudioClip['status'];
  text: string;
  format: AudioClip['format'];
  voice_id: string;
  storage_key: string | null;
  duration_seconds: number | null;
  characters: number;
  credits_charged: number;
  job_id: string | null;
  error: VoiceFailure | null;
  created_at: Date;
}

function toClip(r: ClipRow): AudioClip {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    characterId: r.character_id,
    kind: r.kind,
    status: r.status,
    text: r.text,
    format: r.format,
    voiceId: r.voice_id,
    storageKey: r.storage_key,
    durationSeconds: r.duration_seconds,
    characters: r.characters,
    creditsCharged: r.credits_charged,
    jobId: r.job_id,
    error: r.error,
    createdAt: r.created_at,
  };
}

export type StoredVoice = CharacterVoice & { sampleKeys: string[] };

/** Character voices and audio clips. Every method addressing a character's rows takes the workspace id. */
@Injectable()
export class VoiceRepository {
  async find(m: Tx, workspaceId: string, characterId: string, opts: { lock?: boolean } = {}): Promise<StoredVoice | null> {
    const rows: VoiceRow[] = await m.query(
      `SELECT * FROM character_voices WHERE workspace_id = $1 AND character_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, characterId],
    );
    return rows[0] ? toVoice(rows[0]) : null;
  }

  async findById(m: Tx, workspaceId: string, id: string): Promise<StoredVoice | null> {
    const rows: VoiceRow[] = await m.query('SELECT * FROM character_voices WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
    return rows[0] ? toVoice(rows[0]) : null;
  }

  /** Inserts the character's voice record, or replaces every field of the existing one. */
  async save(m: Tx, v: StoredVoice): Promise<void> {
    await m.query(
      `INSERT INTO character_voices (id, workspace_id, character_id, name, clone_voice_id, status, settings, sample_count, sample_keys, error, job_id,
         credits_charged, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11, $12, $13, now())
       ON CONFLICT (character_id) DO UPDATE SET name = EXCLUDED.name, clone_voice_id = EXCLUDED.clone_voice_id, status = EXCLUDED.status,
         settings = EXCLUDED.settings, sample_count = EXCLUDED.sample_count, sample_keys = EXCLUDED.sample_keys, error = EXCLUDED.error,
         job_id = EXCLUDED.job_id, credits_charged = EXCLUDED.credits_charged, updated_at = now()`,
      [v.id, v.workspaceId, v.characterId, v.name, v.cloneVoiceId, v.status, JSON.stringify(v.settings), v.sampleCount, v.sampleKeys,
        v.error ? JSON.stringify(v.error) : null, v.jobId, v.creditsCharged, v.createdAt],
    );
  }

  /**
   * Ends the clone of `jobId` while it is cloning (a conditional update: a re-delivered job or its
   * failure hook cannot end it twice). Answers the record as ended, or null.
   */
  async endClone(m: Tx, workspaceId: string, id: string, jobId: string, end: { status: 'ready'; cloneVoiceId: string; settings: CharacterVoiceSettings } | { status: 'failed'; error: VoiceFailure }): Promise<StoredVoice | null> {
    const rows: VoiceRow[] = await m.query(
      `WITH ended AS (UPDATE character_voices SET status = $4, clone_voice_id = COALESCE($5, clone_voice_id), settings = COALESCE($6::jsonb, settings),
         error = $7::jsonb, updated_at = now()
         WHERE workspace_id = $1 AND id = $2 AND job_id = $3 AND status = 'cloning' RETURNING *) SELECT * FROM ended`,
      [workspaceId, id, jobId, end.status, end.status === 'ready' ? end.cloneVoiceId : null, end.status === 'ready' ? JSON.stringify(end.settings) : null,
        end.status === 'failed' ? JSON.stringify(end.error) : null],
    );
    return rows[0] ? toVoice(rows[0]) : null;
  }

  /** The workspace's ready clones: the voices it owns beside the provider's library. */
  async clones(m: Tx, workspaceId: string): Promise<StoredVoice[]> {
    const rows: VoiceRow[] = await m.query(
      `SELECT * FROM character_voices WHERE workspace_id = $1 AND clone_voice_id IS NOT NULL ORDER BY created_at, id`,
      [workspaceId],
    );
    return rows.map(toVoice);
  }

  /** Whether one of the workspace's characters holds this provider voice id as its clone. */
  async ownsClone(m: Tx, workspaceId: string, cloneVoiceId: string): Promise<boolean> {
    const rows: unknown[] = await m.query('SELECT 1 FROM character_voices WHERE workspace_id = $1 AND clone_voice_id = $2 LIMIT 1', [workspaceId, cloneVoiceId]);
    return rows.length > 0;
  }

  /**
   * Whether any character, in any workspace, still holds this provider voice id as its clone: the
   * offline synthesiser gives the same samples the same id, so two records may share one.
   */
  async cloneHeld(m: Tx, cloneVoiceId: string): Promise<boolean> {
    const rows: unknown[] = await m.query('SELECT 1 FROM character_voices WHERE clone_voice_id = $1 LIMIT 1', [cloneVoiceId]);
    return rows.length > 0;
  }

  /** Characters of the workspace set to speak with a voice that is gone go back to the default voice. Answers how many. */
  async forgetVoice(m: Tx, workspaceId: string, voiceId: string): Promise<number> {
    const rows: unknown[] = await m.query(
      `UPDATE character_voices SET settings = jsonb_set(settings, '{voiceId}', 'null'::jsonb), updated_at = now()
       WHERE workspace_id = $1 AND settings->>'voiceId' = $2 RETURNING id`,
      [workspaceId, voiceId],
    );
    return rows.length;
  }

  /** The provider voice id of the character's clone, if it has one. */
  async cloneOf(m: Tx, workspaceId: string, characterId: string): Promise<string | null> {
    return (await this.find(m, workspaceId, characterId))?.cloneVoiceId ?? null;
  }

  /** The character's clips, newest first. */
  async listClips(m: Tx, workspaceId: string, characterId: string, req: PageRequest): Promise<Page<AudioClip>> {
    const [rows, count]: [ClipRow[], Array<{ n: number }>] = await Promise.all([
      m.query('SELECT * FROM audio_clips WHERE workspace_id = $1 AND character_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4', [
        workspaceId, characterId, req.pageSize, offsetOf(req),
      ]),
      m.query('SELECT count(*)::int AS n FROM audio_clips WHERE workspace_id = $1 AND character_id = $2', [workspaceId, characterId]),
    ]);
    return { items: rows.map(toClip), page: req.page, pageSize: req.pageSize, total: count[0]?.n ?? 0 };
  }

  async insertClip(m: Tx, c: AudioClip): Promise<void> {
    await m.query(
      `INSERT INTO audio_clips (id, workspace_id, character_id, kind, status, text, format, voice_id, storage_key, duration_seconds, characters,
         credits_charged, job_id, error, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15, now())`,
      [c.id, c.workspaceId, c.characterId, c.kind, c.status, c.text, c.format, c.voiceId, c.storageKey, c.durationSeconds, c.characters,
        c.creditsCharged, c.jobId, c.error ? JSON.stringify(c.error) : null, c.createdAt],
    );
  }

  async findClip(m: Tx, workspaceId: string, id: string): Promise<AudioClip | null> {
    const rows: ClipRow[] = await m.query('SELECT * FROM audio_clips WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
    return rows[0] ? toClip(rows[0]) : null;
  }

  /** Ends a queued clip once: completed with its audio, or failed. Null when it had already ended. */
  async endClip(
    m: Tx,
    workspaceId: string,
    id: string,
    end: { status: 'completed'; storageKey: string; durationSeconds: number; format: AudioClip['format'] } | { status: 'failed'; error: VoiceFailure },
  ): Promise<AudioClip | null> {
    const done = end.status === 'completed' ? end : null;
    const rows: ClipRow[] = await m.query(
      `WITH ended AS (UPDATE audio_clips SET status = $3, storage_key = $4, duration_seconds = $5, error = $6::jsonb, format = COALESCE($7, format), updated_at = now()
         WHERE workspace_id = $1 AND id = $2 AND status = 'queued' RETURNING *) SELECT * FROM ended`,
      [workspaceId, id, end.status, done?.storageKey ?? null, done?.durationSeconds ?? null, end.status === 'failed' ? JSON.stringify(end.error) : null, done?.format ?? null],
    );
    return rows[0] ? toClip(rows[0]) : null;
  }

  async fileKeysOfCharacter(m: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const clips: Array<{ storage_key: string }> = await m.query(
      'SELECT storage_key FROM audio_clips WHERE workspace_id = $1 AND character_id = $2 AND storage_key IS NOT NULL',
      [workspaceId, characterId],
    );
    const voice = await this.find(m, workspaceId, characterId);
    return [...clips.map((c) => c.storage_key), ...(voice?.sampleKeys ?? [])];
  }
}
