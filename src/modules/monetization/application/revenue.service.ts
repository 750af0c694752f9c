import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Caller, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { AuditLog } from '../../audit/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { clickDay } from '../domain/clicks.js';
import {
  acceptCurrency, acceptOccurredAt, emptyBySource, filterRange, parseBound, summaryRange,
  type BySource, type RevenueEntry, type RevenueSource, type TimeRange,
} from '../domain/revenue.js';
import { ClicksRepository } from '../infrastructure/clicks.repository.js';
import { LinksRepository } from '../infrastructure/links.repository.js';
import { RevenueRepository } from '../infrastructure/revenue.repository.js';

export interface RevenueInput {
  source: RevenueSource;
  amount: number;
  currency?: string;
  occurredAt?: string;
  note?: string | null;
  linkId?: string | null;
}

export interface CharacterEarnings {
  characterId: string;
  name: string | null;
  total: number;
  bySource: BySource;
  clicks: number;
}

export interface RevenueSummary {
  range: TimeRange;
  currency: string;
  total: number;
  bySource: BySource;
  characters: CharacterEarnings[];
}

/** Revenue entries and the summary (docs/monetization.md). */
@Injectable()
export class RevenueService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly revenue: RevenueRepository,
    private readonly links: LinksRepository,
    private readonly clicks: ClicksRepository,
    private readonly characters: CharactersFacade,
    private readonly audit: AuditLog,
    private readonly config: AppConfig,
  ) {}

  /** The currency every amount of a workspace is in (workspaces have no currency of their own yet). */
  currencyOf(_workspaceId: string): string {
    return this.config.monetization.currency;
  }

  /** Checks in the order a client can fix them: 404 character, then the body's fields. */
  async record(caller: Caller, characterId: string, input: RevenueInput): Promise<RevenueEntry> {
    const { workspaceId } = caller;
    await this.characters.get(workspaceId, characterId);
    const now = new Date();
    const entry: RevenueEntry = {
      id: newId('rvn'), workspaceId, characterId, source: input.source, amount: input.amount,
      currency: acceptCurrency(input.currency ?? this.currencyOf(workspaceId), this.currencyOf(workspaceId)),
      occurredAt: input.occurredAt === undefined ? now : acceptOccurredAt(parseBound('from', input.occurredAt, 'occurred_at'), now),
      note: input.note ?? null, linkId: input.linkId ?? null, createdAt: now,
    };
    await inTransaction(this.ds, async (tx) => {
      await this.characters.get(workspaceId, characterId, tx);
      if (entry.linkId !== null) {
        const link = await this.links.find(tx, workspaceId, entry.linkId);
        if (!link || link.characterId !== characterId) {
          throw new AppError('validation_failed', 'link_id must name a link of this character.', [{ field: 'link_id', message: 'link_id must name a link of this character' }]);
        }
      }
      await this.revenue.insert(tx, entry);
      await this.audit.record(tx, {
        workspaceId, actorUserId: caller.userId, action: 'revenue.recorded', targetType: 'revenue_entry', targetId: entry.id,
        details: { character_id: characterId, source: entry.source, amount: entry.amount, currency: entry.currency, link_id: entry.linkId },
      });
    });
    return entry;
  }

  async list(workspaceId: string, characterId: string, q: { from?: string; to?: string }, page: PageRequest): Promise<Page<RevenueEntry>> {
    const range = filterRange(q);
    await this.characters.get(workspaceId, characterId);
    return this.revenue.list(this.ds.manager, workspaceId, characterId, range, page);
  }

  /** Totals per source and per character over [from, to) (default the last 90 days), with each character's clicks on those days. */
  async summary(workspaceId: string, q: { from?: string; to?: string }): Promise<RevenueSummary> {
    const range = summaryRange(q, new Date());
    const characters = await this.earnings(workspaceId, range);
    const bySource = emptyBySource();
    for (const c of characters) for (const s of Object.keys(bySource) as RevenueSource[]) bySource[s] += c.bySource[s];
    return { range, currency: this.currencyOf(workspaceId), total: characters.reduce((n, c) => n + c.total, 0), bySource, characters };
  }

  /**
   * Each character's revenue per source over [start, end) and its clicks on the UTC days the range
   * touches; only characters with either. Highest total first.
   */
  async earnings(workspaceId: string, range: TimeRange, characterId?: string): Promise<CharacterEarnings[]> {
    const m = this.ds.manager;
    const lastDay = clickDay(new Date(range.end.getTime() - 1));
    const [totals, clicks] = await Promise.all([
      this.revenue.totals(m, workspaceId, range, characterId),
      this.clicks.byCharacter(m, workspaceId, clickDay(range.start), lastDay, characterId),
    ]);
    const byCharacter = new Map<string, CharacterEarnings>();
    const entry = (id: string): CharacterEarnings => {
      let e = byCharacter.get(id);
      if (!e) byCharacter.set(id, (e = { characterId: id, name: null, total: 0, bySource: emptyBySource(), clicks: 0 }));
      return e;
    };
    for (const t of totals) {
      const e = entry(t.characterId);
      e.bySource[t.source] += t.total;
      e.total += t.total;
    }
    for (const [id, n] of clicks) entry(id).clicks = n;
    const out = [...byCharacter.values()];
    const found = await Promise.all(out.map((e) => this.characters.find(workspaceId, e.characterId)));
    out.forEach((e, i) => (e.name = found[i]?.name ?? null));
    return out.sort((a, b) => b.total - a.total || b.clicks - a.clicks || a.characterId.localeCompare(b.characterId));
  }
}
