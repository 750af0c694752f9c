import { Injectable } from '@nestjs/common';
import { isPlan, offsetOf, type Page, type PageRequest, type Plan } from '../../../core/index.js';
import { PreparedReads, type Tx } from '../../../platform/database/index.js';
import type { Character } from '../domain/character.js';
import { CharacterEntity } from './character.entity.js';
import { CHARACTER_JSON_COLUMNS, toCharacterJson, type CharacterJson, type CharacterJsonRow } from './character-json.js';

type CharacterChanges = Partial<Omit<Character, 'id' | 'workspaceId' | 'createdAt'>>;

const COLUMNS = `id, workspace_id, name, niche, appearance, identity, personality, style, settings, reference_images,
  talking_head_enabled, autopilot, face_consistency_tier, lora_training_status, content_count, follower_count,
  last_post_date, is_default, timezone, face_embedding_updated_at, created_at, updated_at`;

const ORDER = 'created_at DESC, id DESC';

/** Every column of a new character (the entity's), sections as JSON text. */
export const INSERT_CHARACTER = `INSERT INTO characters (id, workspace_id, name, niche, appearance, identity, personality, style, settings, reference_images,
  talking_head_enabled, autopilot, face_consistency_tier, lora_training_status, content_count, follower_count, last_post_date, is_default,
  timezone, face_embedding, face_embedding_updated_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10::jsonb, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20::real[], $21, $22, $23)`;

/** The same row, added only while the workspace ($2) has fewer characters than $24 (`hasRoomForCharacter`). */
export const INSERT_CHARACTER_WITHIN = `${INSERT_CHARACTER.slice(0, INSERT_CHARACTER.indexOf('VALUES'))}
  SELECT $1::text, $2::text, $3::text, $4::text, $5::jsonb, $6::jsonb, $7::jsonb, $8::jsonb, $9::jsonb, $10::jsonb, $11::boolean, $12::boolean,
    $13::text, $14::text, $15::int, $16::int, $17::timestamptz, $18::boolean, $19::text, $20::real[], $21::timestamptz, $22::timestamptz, $23::timestamptz
  WHERE (SELECT count(*) FROM characters WHERE workspace_id = $2::text) < $24::int
  RETURNING id`;

function insertValues(c: Character, faceEmbedding: number[] | null): unknown[] {
  return [
    c.id, c.workspaceId, c.name, c.niche,
    JSON.stringify(c.appearance), JSON.stringify(c.identity), JSON.stringify(c.personality), JSON.stringify(c.style), JSON.stringify(c.settings), JSON.stringify(c.referenceImages),
    c.talkingHeadEnabled, c.autopilot, c.faceConsistencyTier, c.loraTrainingStatus, c.contentCount, c.followerCount, c.lastPostDate, c.isDefault,
    c.timezone, faceEmbedding, c.faceEmbeddingUpdatedAt, c.createdAt, c.updatedAt,
  ];
}

/** A page of wire-ready rows, newest first, each with the total (a window count). */
const LIST_PAGE = `SELECT ${CHARACTER_JSON_COLUMNS}, count(*) OVER () AS total FROM characters
  WHERE workspace_id = $1 ORDER BY ${ORDER} LIMIT $2 OFFSET $3`;

/**
 * Filtered pages: a niche compared whole in any case (index `characters_niche_idx`), a name piece
 * matched literally in any case. The name match scans the workspace's characters, which its plan
 * caps at 100, so it needs no trigram index.
 */
const FILTERED_PAGE = `SELECT ${CHARACTER_JSON_COLUMNS}, count(*) OVER () AS total FROM characters
  WHERE workspace_id = $1 AND ($4::text IS NULL OR lower(niche) = lower($4)) AND ($5::text IS NULL OR name ILIKE $5 ESCAPE '\\')
  ORDER BY ${ORDER} LIMIT $2 OFFSET $3`;

/** `GET /characters` narrowing; no field set is the plain list. */
export interface CharacterListFilter {
  niche?: string;
  nameContains?: string;
}

/** `text` as a LIKE pattern that matches it literally anywhere: its `\`, `%` and `_` escaped. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface CharacterRow {
  id: string;
  workspace_id: string;
  name: string;
  niche: string;
  appearance: Character['appearance'];
  identity: Character['identity'];
  personality: Character['personality'];
  style: Character['style'];
  settings: Character['settings'];
  reference_images: string[];
  talking_head_enabled: boolean;
  autopilot: boolean;
  face_consistency_tier: string;
  lora_training_status: string;
  content_count: number;
  follower_count: number;
  last_post_date: Date | null;
  is_default: boolean;
  timezone: string | null;
  face_embedding_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function fromRow(r: CharacterRow): Character {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    niche: r.niche,
    appearance: r.appearance,
    identity: r.identity,
    personality: r.personality,
    style: r.style,
    settings: r.settings,
    referenceImages: r.reference_images,
    talkingHeadEnabled: r.talking_head_enabled,
    autopilot: r.autopilot,
    faceConsistencyTier: r.face_consistency_tier,
    loraTrainingStatus: r.lora_training_status,
    contentCount: r.content_count,
    followerCount: r.follower_count,
    lastPostDate: r.last_post_date,
    isDefault: r.is_default,
    timezone: r.timezone,
    faceEmbeddingUpdatedAt: r.face_embedding_updated_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Characters of one workspace. Every method is scoped by the workspace id. */
@Injectable()
export class CharacterRepository {
  constructor(private readonly prepared: PreparedReads) {}

  /**
   * Locks the workspace row for the rest of the transaction and answers its plan. Creating
   * transactions take this lock first, so counting characters against the plan is race-free.
   */
  async lockWorkspacePlan(m: Tx, workspaceId: string): Promise<Plan | null> {
    const rows: Array<{ plan: string }> = await m.query('SELECT plan FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    const plan = rows[0]?.plan;
    return isPlan(plan) ? plan : null;
  }

  /**
   * The workspace's plan, how many of its characters were made before this one and how many it
   * has, in one read; null when the character is not the workspace's.
   */
  async seniority(m: Tx, workspaceId: string, id: string): Promise<{ plan: Plan; older: number; total: number } | null> {
    const rows: Array<{ plan: string; older: number; total: number }> = await m.query(
      `SELECT w.plan,
         (SELECT count(*) FROM characters o WHERE o.workspace_id = c.workspace_id AND (o.created_at, o.id) < (c.created_at, c.id))::int AS older,
         (SELECT count(*) FROM characters a WHERE a.workspace_id = c.workspace_id)::int AS total
       FROM characters c JOIN workspaces w ON w.id = c.workspace_id WHERE c.workspace_id = $1 AND c.id = $2`,
      [workspaceId, id],
    );
    const row = rows[0];
    return row && isPlan(row.plan) ? { plan: row.plan, older: row.older, total: row.total } : null;
  }

  /** Plain SQL, as `insert`: on the create path, the entity query builder cost more than the query. */
  async count(m: Tx, workspaceId: string): Promise<number> {
    const rows: Array<{ n: number }> = await m.query('SELECT count(*)::int AS n FROM characters WHERE workspace_id = $1', [workspaceId]);
    return rows[0]?.n ?? 0;
  }

  async insert(m: Tx, c: Character, faceEmbedding: number[] | null = null): Promise<Character> {
    await m.query(INSERT_CHARACTER, insertValues(c, faceEmbedding));
    return c;
  }

  /**
   * Inserts the character only while its workspace has fewer than `limit`, counted in the same
   * statement; false when it had no room. The caller holds the workspace row's lock (taken by an
   * earlier statement, so this one's snapshot sees every creator that held the lock before).
   */
  async insertWithin(m: Tx, c: Character, limit: number): Promise<boolean> {
    const rows: unknown[] = await m.query(INSERT_CHARACTER_WITHIN, [...insertValues(c, null), limit]);
    return rows.length === 1;
  }

  /** Plain SQL: paid orders check their character with it, and the entity query builder cost more than the query. */
  async find(m: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<Character | null> {
    const rows: CharacterRow[] = await m.query(
      `SELECT ${COLUMNS} FROM characters WHERE id = $1 AND workspace_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
      [id, workspaceId],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** One round trip: the page, already in its wire shape, and the total in the same prepared query. */
  async list(workspaceId: string, req: PageRequest, filter: CharacterListFilter = {}): Promise<Page<CharacterJson>> {
    const paging = [workspaceId, req.pageSize, offsetOf(req)];
    const filtered = filter.niche !== undefined || filter.nameContains !== undefined;
    const rows = filtered
      ? await this.prepared.rows<CharacterJsonRow & { total: string }>('characters_filtered_page', FILTERED_PAGE, [
          ...paging, filter.niche ?? null, filter.nameContains === undefined ? null : containsPattern(filter.nameContains),
        ])
      : await this.prepared.rows<CharacterJsonRow & { total: string }>('characters_page', LIST_PAGE, paging);
    if (rows.length === 0 && filtered) return { items: [], page: req.page, pageSize: req.pageSize, total: await this.countFiltered(workspaceId, req, filter) };
    const total = rows.length > 0 ? Number(rows[0].total) : await this.countOutsidePage(workspaceId, req);
    return { items: rows.map(toCharacterJson), page: req.page, pageSize: req.pageSize, total };
  }

  /** A page past the end has no rows to carry the window count. */
  private async countOutsidePage(workspaceId: string, req: PageRequest): Promise<number> {
    if (offsetOf(req) === 0) return 0;
    const rows = await this.prepared.rows<{ n: string }>('characters_count', 'SELECT count(*) AS n FROM characters WHERE workspace_id = $1', [workspaceId]);
    return Number(rows[0]?.n ?? 0);
  }

  /** The filtered count for a page with no rows: zero unless the page lies past the end. */
  private async countFiltered(workspaceId: string, req: PageRequest, filter: CharacterListFilter): Promise<number> {
    if (offsetOf(req) === 0) return 0;
    const all = await this.list(workspaceId, { page: 1, pageSize: 1 }, filter);
    return all.total;
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

  /** Sets the follower counts of several characters of one workspace in one statement. */
  async setFollowerCounts(m: Tx, workspaceId: string, counts: ReadonlyMap<string, number>): Promise<void> {
    if (counts.size === 0) return;
    await m.query(
      `UPDATE characters c SET follower_count = v.n
         FROM unnest($2::text[], $3::int[]) AS v(id, n)
        WHERE c.workspace_id = $1 AND c.id = v.id AND c.follower_count IS DISTINCT FROM v.n`,
      [workspaceId, [...counts.keys()], [...counts.values()]],
    );
  }
}
