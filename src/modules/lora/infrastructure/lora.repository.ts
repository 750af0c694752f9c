import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import type { Lora, LoraFailure, LoraStatus, TrainingImageRecord } from '../domain/lora.js';

interface LoraRow {
  id: string;
  workspace_id: string;
  character_id: string;
  status: LoraStatus;
  base_model: Lora['baseModel'];
  training_steps: number;
  lora_rank: number;
  trigger_word: string;
  progress: number;
  job_id: string;
  provider: Lora['provider'];
  provider_training_id: string | null;
  weights_url: string | null;
  provider_version: string | null;
  style: number[] | null;
  error: LoraFailure | null;
  credits_charged: number;
  trained_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toLora(r: LoraRow): Lora {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    characterId: r.character_id,
    status: r.status,
    baseModel: r.base_model,
    trainingSteps: r.training_steps,
    loraRank: r.lora_rank,
    triggerWord: r.trigger_word,
    progress: r.progress,
    jobId: r.job_id,
    provider: r.provider,
    providerTrainingId: r.provider_training_id,
    weightsUrl: r.weights_url,
    providerVersion: r.provider_version,
    style: r.style ? r.style.map(Number) : null,
    error: r.error,
    creditsCharged: r.credits_charged,
    trainedAt: r.trained_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface ImageRow {
  id: string;
  workspace_id: string;
  character_id: string;
  storage_key: string;
  content_type: string;
  size_bytes: number;
  width: number;
  height: number;
  created_at: Date;
}

function toImage(r: ImageRow): TrainingImageRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    characterId: r.character_id,
    storageKey: r.storage_key,
    contentType: r.content_type,
    sizeBytes: r.size_bytes,
    width: r.width,
    height: r.height,
    createdAt: r.created_at,
  };
}

/** What a terminal or progress change writes besides the status. */
export interface LoraChanges {
  progress?: number;
  providerTrainingId?: string;
  weightsUrl?: string | null;
  providerVersion?: string | null;
  style?: number[] | null;
  error?: LoraFailure | null;
  trainedAt?: Date;
}

const CHANGE_COLUMNS: Record<keyof LoraChanges, string> = {
  progress: 'progress',
  providerTrainingId: 'provider_training_id',
  weightsUrl: 'weights_url',
  providerVersion: 'provider_version',
  style: 'style',
  error: 'error',
  trainedAt: 'trained_at',
};

/** LoRAs and training images. Every method addressing a character's rows takes the workspace id. */
@Injectable()
export class LoraRepository {
  async findByCharacter(m: Tx, workspaceId: string, characterId: string, opts: { lock?: boolean } = {}): Promise<Lora | null> {
    const rows: LoraRow[] = await m.query(
      `SELECT * FROM loras WHERE workspace_id = $1 AND character_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, characterId],
    );
    return rows[0] ? toLora(rows[0]) : null;
  }

  async find(m: Tx, workspaceId: string, id: string): Promise<Lora | null> {
    const rows: LoraRow[] = await m.query('SELECT * FROM loras WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
    return rows[0] ? toLora(rows[0]) : null;
  }

  /** The character's LoRA while it is ready: the one read every image job makes. */
  async findReady(m: Tx, workspaceId: string, characterId: string): Promise<Lora | null> {
    const rows: LoraRow[] = await m.query(
      `SELECT * FROM loras WHERE workspace_id = $1 AND character_id = $2 AND status = 'ready'`,
      [workspaceId, characterId],
    );
    return rows[0] ? toLora(rows[0]) : null;
  }

  /**
   * A training about to be queued: a new row, or the character's finished one (ready or failed) reset
   * for it. Null when the character's row is queued or training (the caller holds the character's lock,
   * so that is a training the caller's checks did not see, and it must refuse).
   */
  async queue(m: Tx, lora: Lora): Promise<Lora | null> {
    const rows: LoraRow[] = await m.query(
      `INSERT INTO loras (id, workspace_id, character_id, status, base_model, training_steps, lora_rank, trigger_word, progress, job_id,
         provider, provider_training_id, weights_url, provider_version, style, error, credits_charged, trained_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, 0, $8, $9, NULL, NULL, NULL, NULL, NULL, $10, NULL, now(), now())
       ON CONFLICT (character_id) DO UPDATE SET
         status = 'queued', base_model = EXCLUDED.base_model, training_steps = EXCLUDED.training_steps, lora_rank = EXCLUDED.lora_rank,
         trigger_word = EXCLUDED.trigger_word, progress = 0, job_id = EXCLUDED.job_id, provider = EXCLUDED.provider,
         provider_training_id = NULL, weights_url = NULL, provider_version = NULL, style = NULL, error = NULL,
         credits_charged = EXCLUDED.credits_charged, trained_at = NULL, updated_at = now()
       WHERE loras.status IN ('ready', 'failed') AND loras.workspace_id = EXCLUDED.workspace_id
       RETURNING *`,
      [lora.id, lora.workspaceId, lora.characterId, lora.baseModel, lora.trainingSteps, lora.loraRank, lora.triggerWord, lora.jobId, lora.provider, lora.creditsCharged],
    );
    return rows[0] ? toLora(rows[0]) : null;
  }

  /**
   * Moves the training of `jobId` to `to` only while it is in one of `from` (a conditional update:
   * of a webhook and polls reporting the same end at once, exactly one moves it). Answers the row as
   * moved, or null when it was not there to move.
   */
  async move(m: Tx, workspaceId: string, id: string, jobId: string, from: readonly LoraStatus[], to: LoraStatus, changes: LoraChanges = {}): Promise<Lora | null> {
    const params: unknown[] = [workspaceId, id, jobId, [...from], to];
    const sets = ['status = $5', 'updated_at = now()'];
    for (const [key, value] of Object.entries(changes) as Array<[keyof LoraChanges, unknown]>) {
      if (value === undefined) continue;
      params.push(key === 'error' && value !== null ? JSON.stringify(value) : value);
      sets.push(`${CHANGE_COLUMNS[key]} = $${params.length}${key === 'error' ? '::jsonb' : ''}`);
    }
    const rows: LoraRow[] = await m.query(
      `WITH moved AS (UPDATE loras SET ${sets.join(', ')}
         WHERE workspace_id = $1 AND id = $2 AND job_id = $3 AND status = ANY($4::text[]) RETURNING *)
       SELECT * FROM moved`,
      params,
    );
    return rows[0] ? toLora(rows[0]) : null;
  }

  /** Progress only rises, and only while training. */
  async advance(m: Tx, workspaceId: string, id: string, jobId: string, progress: number): Promise<boolean> {
    const rows: Array<{ id: string }> = await m.query(
      `WITH moved AS (UPDATE loras SET progress = $4, updated_at = now()
         WHERE workspace_id = $1 AND id = $2 AND job_id = $3 AND status = 'training' AND progress < $4 RETURNING id)
       SELECT id FROM moved`,
      [workspaceId, id, jobId, progress],
    );
    return rows.length > 0;
  }

  async delete(m: Tx, workspaceId: string, id: string): Promise<void> {
    await m.query('DELETE FROM loras WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  }

  /** The LoRA a provider's training belongs to, in whichever workspace: webhooks name only the provider's id. */
  async findByProviderTraining(m: Tx, provider: Lora['provider'], providerTrainingId: string): Promise<Lora | null> {
    const rows: LoraRow[] = await m.query('SELECT * FROM loras WHERE provider = $1 AND provider_training_id = $2', [provider, providerTrainingId]);
    return rows[0] ? toLora(rows[0]) : null;
  }

  /** Records a webhook delivery; false when it was recorded before (a provider's retry). */
  async recordDelivery(m: Tx, deliveryId: string, providerTrainingId: string): Promise<boolean> {
    const rows: Array<{ id: string }> = await m.query(
      'INSERT INTO lora_webhook_deliveries (id, provider_training_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id',
      [deliveryId, providerTrainingId],
    );
    return rows.length > 0;
  }

  async listImages(m: Tx, workspaceId: string, characterId: string): Promise<TrainingImageRecord[]> {
    const rows: ImageRow[] = await m.query(
      'SELECT * FROM lora_training_images WHERE workspace_id = $1 AND character_id = $2 ORDER BY created_at, id',
      [workspaceId, characterId],
    );
    return rows.map(toImage);
  }

  async countImages(m: Tx, workspaceId: string, characterId: string): Promise<number> {
    const rows: Array<{ n: number }> = await m.query(
      'SELECT count(*)::int AS n FROM lora_training_images WHERE workspace_id = $1 AND character_id = $2',
      [workspaceId, characterId],
    );
    return rows[0]?.n ?? 0;
  }

  async insertImages(m: Tx, images: readonly TrainingImageRecord[]): Promise<void> {
    for (const i of images) {
      await m.query(
        `INSERT INTO lora_training_images (id, workspace_id, character_id, storage_key, content_type, size_bytes, width, height, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [i.id, i.workspaceId, i.characterId, i.storageKey, i.contentType, i.sizeBytes, i.width, i.height, i.createdAt],
      );
    }
  }

  /** Removes one image; answers it, or null when the character has no such image. */
  async deleteImage(m: Tx, workspaceId: string, characterId: string, id: string): Promise<TrainingImageRecord | null> {
    const rows: ImageRow[] = await m.query(
      `WITH gone AS (DELETE FROM lora_training_images WHERE workspace_id = $1 AND character_id = $2 AND id = $3 RETURNING *) SELECT * FROM gone`,
      [workspaceId, characterId, id],
    );
    return rows[0] ? toImage(rows[0]) : null;
  }

  /** Removes every image of the character; answers their storage keys. */
  async deleteImages(m: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const rows: Array<{ storage_key: string }> = await m.query(
      `WITH gone AS (DELETE FROM lora_training_images WHERE workspace_id = $1 AND character_id = $2 RETURNING storage_key) SELECT storage_key FROM gone`,
      [workspaceId, characterId],
    );
    return rows.map((r) => r.storage_key);
  }

  async imageKeysOfCharacter(m: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const rows: Array<{ storage_key: string }> = await m.query(
      'SELECT storage_key FROM lora_training_images WHERE workspace_id = $1 AND character_id = $2',
      [workspaceId, characterId],
    );
    return rows.map((r) => r.storage_key);
  }
}
