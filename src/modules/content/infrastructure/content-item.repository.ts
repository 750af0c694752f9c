import { Injectable } from '@nestjs/common';
import { isPlatformName, offsetOf, platformSpellings, type Page, type PageRequest } from '../../../core/index.js';
import { jsonParam, SqlParams, type ComposedStatement, type Tx } from '../../../platform/database/index.js';
import { mediaKeysOf, type ContentItem, type ContentStatus, type StoredMedia } from '../domain/content-item.js';
import { ContentItemEntity } from './content-item.entity.js';

export type ContentItemChanges = Partial<Omit<ContentItem, 'id' | 'workspaceId' | 'characterId' | 'createdAt'>>;

export interface QueueFilter {
  characterId?: string;
  statuses: readonly ContentStatus[];
  platform?: string;
  contentType?: string;
}

/** `GET /content`: the queue's filters, every status unless some are named. */
export type ContentFilter = Omit<QueueFilter, 'statuses'> & { statuses?: readonly ContentStatus[] };

interface ContentItemRow {
  id: string;
  workspace_id: string;
  character_id: string;
  status: ContentItem['status'];
  platform: string;
  content_type: ContentItem['contentType'];
  kind: ContentItem['kind'];
  image_prompt: string;
  caption: string | null;
  hashtags: string[];
  cta: string | null;
  media: ContentItem['media'];
  variants: ContentItem['variants'];
  variants_locked: boolean;
  video: ContentItem['video'];
  language: string | null;
  planned_for: Date | null;
  rejection_reason: string | null;
  job_id: string | null;
  media_job_id: string | null;
  week_job_id: string | null;
  plan_index: number | null;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
}

function fromRow(r: ContentItemRow): ContentItem {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    characterId: r.character_id,
    status: r.status,
    platform: r.platform,
    contentType: r.content_type,
    kind: r.kind,
    imagePrompt: r.image_prompt,
    caption: r.caption,
    hashtags: r.hashtags ?? [],
    cta: r.cta,
    media: r.media ?? [],
    variants: r.variants ?? [],
    variantsLocked: r.variants_locked,
    video: r.video,
    language: r.language,
    plannedFor: r.planned_for,
    rejectionReason: r.rejection_reason,
    jobId: r.job_id,
    mediaJobId: r.media_job_id,
    weekJobId: r.week_job_id,
    planIndex: r.plan_index,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    publishedAt: r.published_at,
  };
}

/** The queue's order: by when the item is planned for (else made), oldest first. */
const QUEUE_ORDER = 'COALESCE(planned_for, created_at) ASC, id ASC';
/** The content list's order: newest first. */
const NEWEST_ORDER = 'created_at DESC, id DESC';
const CALENDAR_LIMIT = 5000;

/** Content items of one workspace. Every method is scoped by the workspace id. */
@Injectable()
export class ContentItemRepository {
  /** Plain SQL: every generate request inserts one, and the entity insert builder cost more than the statement. */
  async insert(m: Tx, item: ContentItem): Promise<void> {
    const p = new SqlParams();
    await m.query(this.insertSql(p, item), p.values);
  }

  /** Adds the INSERT of a new item to a paid order's statement (as the common table expression `new_item`). */
  addInsert(statement: ComposedStatement, item: ContentItem): void {
    statement.with('new_item', (p) => this.insertSql(p, item));
  }

  private insertSql(p: SqlParams, item: ContentItem): string {
    return `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, hashtags,
        cta, media, variants, variants_locked, video, language, planned_for, rejection_reason, job_id, media_job_id, week_job_id,
        plan_index, created_at, updated_at, published_at)
      VALUES (${p.bindAll([item.id, item.workspaceId, item.characterId, item.status, item.platform, item.contentType, item.kind, item.imagePrompt,
        item.caption, jsonParam(item.hashtags), item.cta, jsonParam(item.media), jsonParam(item.variants), item.variantsLocked, jsonParam(item.video),
        item.language, item.plannedFor, item.rejectionReason, item.jobId, item.mediaJobId, item.weekJobId, item.planIndex, item.createdAt,
        item.updatedAt, item.publishedAt])})`;
  }

  async find(m: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<ContentItem | null> {
    const rows: ContentItemRow[] = await m.query(
      `SELECT * FROM content_items WHERE workspace_id = $1 AND id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
      [workspaceId, id],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async delete(m: Tx, workspaceId: string, id: string): Promise<void> {
    await m.query('DELETE FROM content_items WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  }

  /** The storage keys of every item of a character, for removing its files when it is deleted. */
  async mediaKeysOfCharacter(m: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const rows: Array<{ media: StoredMedia[] | null }> = await m.query(
      'SELECT media FROM content_items WHERE workspace_id = $1 AND character_id = $2',
      [workspaceId, characterId],
    );
    return rows.flatMap((r) => mediaKeysOf(r.media ?? []));
  }

  async update(m: Tx, workspaceId: string, id: string, changes: ContentItemChanges): Promise<void> {
    await m.getRepository(ContentItemEntity).update({ workspaceId, id }, changes);
  }

  async list(m: Tx, workspaceId: string, filter: ContentFilter, req: PageRequest, order: 'queue' | 'newest' = 'queue'): Promise<Page<ContentItem>> {
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspaceId];
    const add = (column: string, value: string | string[] | undefined) => {
      if (value === undefined) return;
      params.push(value);
      where.push(Array.isArray(value) ? `${column} = ANY($${params.length})` : `${column} = $${params.length}`);
    };
    add('status', filter.statuses ? [...filter.statuses] : undefined);
    add('character_id', filter.characterId);
    add('platform', filter.platform && isPlatformName(filter.platform) ? platformSpellings(filter.platform) : filter.platform);
    add('content_type', filter.contentType);
    const clause = where.join(' AND ');
    // One after the other: inside a transaction both would share one connection anyway.
    const rows: ContentItemRow[] = await m.query(
      `SELECT * FROM content_items WHERE ${clause} ORDER BY ${order === 'queue' ? QUEUE_ORDER : NEWEST_ORDER} LIMIT ${req.pageSize} OFFSET ${offsetOf(req)}`,
      params,
    );
    const counted: Array<{ total: number }> = await m.query(`SELECT count(*)::int AS total FROM content_items WHERE ${clause}`, params);
    return { items: rows.map(fromRow), page: req.page, pageSize: req.pageSize, total: counted[0]?.total ?? 0 };
  }

  /**
   * The calendar's items within [startsAt, endsBefore): a published item by when it was published,
   * any other by when it is planned; in calendar order.
   */
  async listForCalendar(m: Tx, workspaceId: string, range: { startsAt: Date; endsBefore: Date; characterId?: string }): Promise<ContentItem[]> {
    const params: unknown[] = [workspaceId, range.startsAt, range.endsBefore];
    let sql = `SELECT * FROM content_items WHERE workspace_id = $1
      AND ((published_at >= $2 AND published_at < $3) OR (published_at IS NULL AND planned_for >= $2 AND planned_for < $3))`;
    if (range.characterId) {
      params.push(range.characterId);
      sql += ' AND character_id = $4';
    }
    const rows: ContentItemRow[] = await m.query(`${sql} ORDER BY COALESCE(published_at, planned_for), id LIMIT ${CALENDAR_LIMIT}`, params);
    return rows.map(fromRow);
  }

  async listForWeekJob(m: Tx, workspaceId: string, weekJobId: string): Promise<ContentItem[]> {
    const rows: ContentItemRow[] = await m.query(
      'SELECT * FROM content_items WHERE workspace_id = $1 AND week_job_id = $2 ORDER BY plan_index',
      [workspaceId, weekJobId],
    );
    return rows.map(fromRow);
  }

  async countForWeekJob(m: Tx, workspaceId: string, weekJobId: string): Promise<number> {
    const rows: Array<{ n: number }> = await m.query(
      'SELECT count(*)::int AS n FROM content_items WHERE workspace_id = $1 AND week_job_id = $2',
      [workspaceId, weekJobId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Items of the given statuses, oldest planned first, for other contexts (e.g. scheduling). */
  async listByStatus(m: Tx, workspaceId: string, filter: { statuses: readonly ContentStatus[]; characterId?: string; limit: number }): Promise<ContentItem[]> {
    const params: unknown[] = [workspaceId, [...filter.statuses]];
    let sql = 'SELECT * FROM content_items WHERE workspace_id = $1 AND status = ANY($2)';
    if (filter.characterId) {
      params.push(filter.characterId);
      sql += ' AND character_id = $3';
    }
    const rows: ContentItemRow[] = await m.query(`${sql} ORDER BY ${QUEUE_ORDER} LIMIT ${Math.max(1, Math.floor(filter.limit))}`, params);
    return rows.map(fromRow);
  }
}
