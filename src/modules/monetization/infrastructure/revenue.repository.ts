import { Injectable } from '@nestjs/common';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import type { RevenueEntry, RevenueSource } from '../domain/revenue.js';
import { RevenueEntryEntity } from './monetization.entities.js';

function toEntry(e: RevenueEntryEntity): RevenueEntry {
  return { ...e, amount: Number(e.amount) };
}

/** One character's total of one source over a range. */
export interface SourceTotal {
  characterId: string;
  source: RevenueSource;
  total: number;
}

/** Revenue entries of one workspace. Every method is scoped by the workspace id. */
@Injectable()
export class RevenueRepository {
  async insert(tx: Tx, entry: RevenueEntry): Promise<void> {
    await tx.getRepository(RevenueEntryEntity).insert({ ...entry, amount: String(entry.amount) });
  }

  /** A character's entries, newest `occurred_at` first, within [start, end) when given. */
  async list(m: Tx, workspaceId: string, characterId: string, range: { start?: Date; end?: Date }, req: PageRequest): Promise<Page<RevenueEntry>> {
    const qb = m.getRepository(RevenueEntryEntity).createQueryBuilder('r')
      .where('r.workspace_id = :workspaceId AND r.character_id = :characterId', { workspaceId, characterId });
    if (range.start) qb.andWhere('r.occurred_at >= :start', { start: range.start });
    if (range.end) qb.andWhere('r.occurred_at < :end', { end: range.end });
    const [rows, total] = await qb.orderBy('r.occurred_at', 'DESC').addOrderBy('r.id', 'DESC').skip(offsetOf(req)).take(req.pageSize).getManyAndCount();
    return { items: rows.map(toEntry), page: req.page, pageSize: req.pageSize, total };
  }

  /** Sums per character and source over [start, end); one character only when `characterId` is given. */
  async totals(m: Tx, workspaceId: string, range: { start: Date; end: Date }, characterId?: string): Promise<SourceTotal[]> {
    const rows: Array<{ character_id: string; source: RevenueSource; total: string }> = await m.query(
      `SELECT character_id, source, SUM(amount)::text AS total FROM revenue_entries
       WHERE workspace_id = $1 AND occurred_at >= $2 AND occurred_at < $3 AND ($4::text IS NULL OR character_id = $4)
       GROUP BY character_id, source`,
      [workspaceId, range.start, range.end, characterId ?? null],
    );
    return rows.map((r) => ({ characterId: r.character_id, source: r.source, total: Number(r.total) }));
  }
}
