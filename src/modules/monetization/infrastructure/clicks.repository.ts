import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import { parseClickField, type ClickCounts } from '../domain/clicks.js';

/** Where counted clicks land in PostgreSQL: the per-day series and each link's total. */
@Injectable()
export class ClicksRepository {
  /**
   * Writes one batch of counts (any workspace's links: a batch is the whole service's clicks since
   * the last flush) unless that batch was written before: its id is recorded in the same
   * transaction, so a batch written again after a crash between the commit and its removal from
   * Redis counts once. Links deleted since the clicks were counted are skipped.
   *
   * Locks are taken top-down, as a deletion takes them (workspace → character → link → day
   * cells): the rows the cells hang from first, each kind in id order, then the cells. Writing a
   * day cell first and its link after met a link deletion the other way round (it holds the
   * link and waits for the cell its cascade deletes) in a deadlock that failed the deletion.
   * Answers whether the batch was applied now.
   */
  async apply(tx: Tx, batchId: string, counts: ClickCounts): Promise<boolean> {
    const recorded: unknown[] = await tx.query('INSERT INTO link_click_flushes (batch_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING batch_id', [batchId]);
    if (recorded.length === 0) return false;
    const cells = [...counts]
      .flatMap(([field, clicks]) => {
        const cell = parseClickField(field);
        return cell && clicks > 0 ? [{ ...cell, clicks }] : [];
      })
      .sort((a, b) => (a.linkId === b.linkId ? a.day.localeCompare(b.day) : a.linkId < b.linkId ? -1 : 1));
    if (cells.length === 0) return true;
    const linkIds = cells.map((c) => c.linkId);
    const params = [linkIds, cells.map((c) => c.day), cells.map((c) => c.clicks)];
    await lockOwners(tx, [...new Set(linkIds)]);
    await tx.query(
      `INSERT INTO link_clicks_daily (link_id, day, workspace_id, character_id, clicks)
       SELECT c.link_id, c.day::date, l.workspace_id, l.character_id, c.clicks
       FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS c(link_id, day, clicks, n)
       JOIN affiliate_links l ON l.id = c.link_id
       ORDER BY c.n
       ON CONFLICT (link_id, day) DO UPDATE SET clicks = link_clicks_daily.clicks + EXCLUDED.clicks`,
      params,
    );
    await tx.query(
      `UPDATE affiliate_links l SET click_count = l.click_count + s.clicks
       FROM (SELECT link_id, SUM(clicks) AS clicks FROM unnest($1::text[], $2::bigint[]) AS c(link_id, clicks) GROUP BY link_id) s
       WHERE l.id = s.link_id`,
      [params[0], params[2]],
    );
    return true;
  }

  /** Forgets written batch ids older than `before` (a batch is retried within minutes, never days later). */
  async prune(m: Tx, before: Date): Promise<void> {
    await m.query('DELETE FROM link_click_flushes WHERE flushed_at < $1', [before]);
  }

  /** A link's clicks per day in [fromDay, toDay] (only days with clicks). */
  async series(m: Tx, workspaceId: string, linkId: string, fromDay: string, toDay: string): Promise<Map<string, number>> {
    const rows: Array<{ day: string; clicks: string }> = await m.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, clicks::text AS clicks FROM link_clicks_daily
       WHERE workspace_id = $1 AND link_id = $2 AND day BETWEEN $3::date AND $4::date`,
      [workspaceId, linkId, fromDay, toDay],
    );
    return new Map(rows.map((r) => [r.day, Number(r.clicks)]));
  }

  /** Clicks per character over the days [fromDay, toDay]; one character only when `characterId` is given. */
  async byCharacter(m: Tx, workspaceId: string, fromDay: string, toDay: string, characterId?: string): Promise<Map<string, number>> {
    const rows: Array<{ character_id: string; clicks: string }> = await m.query(
      `SELECT character_id, SUM(clicks)::text AS clicks FROM link_clicks_daily
       WHERE workspace_id = $1 AND day BETWEEN $2::date AND $3::date AND ($4::text IS NULL OR character_id = $4)
       GROUP BY character_id`,
      [workspaceId, fromDay, toDay, characterId ?? null],
    );
    return new Map(rows.map((r) => [r.character_id, Number(r.clicks)]));
  }
}

/**
 * Holds the workspaces and characters of `linkIds` against deletion (KEY SHARE: what inserting a
 * row that references them takes anyway), then the links themselves against change, each kind in
 * id order. A deletion that got there first is waited for, and its links are then skipped.
 */
async function lockOwners(tx: Tx, linkIds: string[]): Promise<void> {
  const owners = `SELECT workspace_id, character_id FROM affiliate_links WHERE id = ANY($1::text[])`;
  await tx.query(`SELECT 1 FROM workspaces WHERE id IN (SELECT workspace_id FROM (${owners}) o) ORDER BY id FOR KEY SHARE`, [linkIds]);
  await tx.query(`SELECT 1 FROM characters WHERE id IN (SELECT character_id FROM (${owners}) o) ORDER BY id FOR KEY SHARE`, [linkIds]);
  await tx.query('SELECT 1 FROM affiliate_links WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE', [linkIds]);
}
