import { Injectable } from '@nestjs/common';
import { isPlan, offsetOf, type Page, type PageRequest, type Plan } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { Character } from '../domain/character.js';
import { CharacterEntity } from './character.entity.js';

type CharacterChanges = Partial<Omit<Character, 'id' | 'workspaceId' | 'createdAt'>>;

function toCharacter(e: CharacterEntity): Character {
  const { faceEmbedding: _vector, ...rest } = e;
  return { ...rest, referenceImages: [...(e.referenceImages ?? [])] };
}

/** Characters of one workspace. Every method is scoped by the workspace id. */
@Injectable()
export class CharacterRepository {
  /**
   * Locks the workspace row for the rest of the transaction and answers its plan. Creating
   * transactions take this lock first, so counting characters against the plan is race-free.
   */
  async lockWorkspacePlan(m: Tx, workspaceId: string): Promise<Plan | null> {
    const rows: Array<{ plan: string }> = await m.query('SELECT plan FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    const plan = rows[0]?.plan;
    return isPlan(plan) ? plan : null;
  }

  count(m: Tx, workspaceId: string): Promise<number> {
    return m.getRepository(CharacterEntity).count({ where: { workspaceId } });
  }

  async insert(m: Tx, character: Character, faceEmbedding: number[] | null = null): Promise<Character> {
    await m.getRepository(CharacterEntity).insert({ ...character, faceEmbedding });
    return character;
  }

  async find(m: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<Character | null> {
    const found = await m.getRepository(CharacterEntity).findOne({
      where: { id, workspaceId },
      ...(opts.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return found ? toCharacter(found) : null;
  }

  async list(m: Tx, workspaceId: string, req: PageRequest): Promise<Page<Character>> {
    const [rows, total] = await m.getRepository(CharacterEntity).findAndCount({
      where: { workspaceId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offsetOf(req),
      take: req.pageSize,
    });
    return { items: rows.map(toCharacter), page: req.page, pageSize: req.pageSize, total };
  }

  async update(m: Tx, workspaceId: string, id: string, changes: CharacterChanges): Promise<void> {
    await m.getRepository(CharacterEntity).update({ id, workspaceId }, changes);
  }

  /** Makes one character the default; the partial unique index allows one per workspace. */
  async makeDefault(m: Tx, workspaceId: string, id: string, at: Date): Promise<void> {
    await m.query('UPDATE characters SET is_default = false, updated_at = $3 WHERE workspace_id = $1 AND is_default AND id <> $2', [workspaceId, id, at]);
    await m.query('UPDATE characters SET is_default = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2 AND NOT is_default', [workspaceId, id, at]);
  }

  async delete(m: Tx, workspaceId: string, id: string): Promise<boolean> {
    const res = await m.getRepository(CharacterEntity).delete({ id, workspaceId });
    return (res.affected ?? 0) > 0;
  }

  async faceEmbedding(m: Tx, workspaceId: string, id: string): Promise<number[] | null> {
    const rows: Array<{ face_embedding: number[] | null }> = await m.query(
      'SELECT face_embedding FROM characters WHERE workspace_id = $1 AND id = $2',
      [workspaceId, id],
    );
    return rows[0]?.face_embedding ?? null;
  }

  async saveFaceEmbedding(m: Tx, workspaceId: string, id: string, vector: number[] | null, at: Date): Promise<void> {
    await m.getRepository(CharacterEntity).update({ id, workspaceId }, { faceEmbedding: vector, faceEmbeddingUpdatedAt: at });
  }

  /** Counters kept for other contexts (content, publishing). */
  async addContent(m: Tx, workspaceId: string, id: string, by: number): Promise<void> {
    await m.query('UPDATE characters SET content_count = GREATEST(content_count + $3, 0) WHERE workspace_id = $1 AND id = $2', [workspaceId, id, by]);
  }

  async recordPost(m: Tx, workspaceId: string, id: string, at: Date): Promise<void> {
    await m.query(
      'UPDATE characters SET last_post_date = GREATEST(COALESCE(last_post_date, $3), $3) WHERE workspace_id = $1 AND id = $2',
      [workspaceId, id, at],
    );
  }
}
