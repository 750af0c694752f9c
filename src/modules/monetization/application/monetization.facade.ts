import { Injectable } from '@nestjs/common';
import { RevenueService } from './revenue.service.js';

/** One character's revenue (minor units) and counted clicks over a range of days. */
export interface CharacterEarningsBrief {
  characterId: string;
  revenue: number;
  clicks: number;
}

export interface EarningsOverview {
  currency: string;
  revenue: number;
  clicks: number;
  characters: CharacterEarningsBrief[];
}

const DAY_MS = 86_400_000;

/** What other contexts may ask monetization (analytics shows earnings next to its metrics). */
@Injectable()
export class MonetizationFacade {
  constructor(private readonly revenue: RevenueService) {}

  /**
   * Revenue and clicks per character over the UTC days [fromDay, toDay] (both included), highest
   * revenue first; only characters with either. One character when `characterId` is given.
   */
  async earnings(workspaceId: string, range: { fromDay: string; toDay: string; characterId?: string }): Promise<EarningsOverview> {
    const start = new Date(`${range.fromDay}T00:00:00.000Z`);
    const end = new Date(new Date(`${range.toDay}T00:00:00.000Z`).getTime() + DAY_MS);
    const rows = await this.revenue.earnings(workspaceId, { start, end }, range.characterId);
    const characters = rows.map((r) => ({ characterId: r.characterId, revenue: r.total, clicks: r.clicks }));
    return {
      currency: this.revenue.currencyOf(workspaceId),
      revenue: characters.reduce((n, c) => n + c.revenue, 0),
      clicks: characters.reduce((n, c) => n + c.clicks, 0),
      characters,
    };
  }
}
