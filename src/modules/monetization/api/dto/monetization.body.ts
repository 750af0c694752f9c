import { ApiProperty } from '@nestjs/swagger';
import { PLATFORM_NAMES } from '../../../../core/index.js';
import type { ClickSeries } from '../../application/links.service.js';
import type { CharacterEarnings, RevenueSummary } from '../../application/revenue.service.js';
import type { LinkWithRevenue } from '../../domain/affiliate-link.js';
import { REVENUE_SOURCES, type BySource, type RevenueEntry } from '../../domain/revenue.js';

export function toLinkBody(l: LinkWithRevenue, shortUrl: string): LinkBody {
  return {
    id: l.id, character_id: l.characterId, platform: l.platform, destination_url: l.destinationUrl, shortcode: l.shortcode,
    short_url: shortUrl, click_count: l.clickCount, revenue: l.revenue, created_at: l.createdAt.toISOString(), updated_at: l.updatedAt.toISOString(),
  };
}

export function toClicksBody(s: ClickSeries): ClickSeriesBody {
  return { link_id: s.linkId, from: s.days[0].date, to: s.days[s.days.length - 1].date, total: s.total, days: s.days };
}

export function toRevenueBody(e: RevenueEntry): RevenueEntryBody {
  return {
    id: e.id, character_id: e.characterId, source: e.source, amount: e.amount, currency: e.currency,
    occurred_at: e.occurredAt.toISOString(), note: e.note, link_id: e.linkId, created_at: e.createdAt.toISOString(),
  };
}

function bySourceBody(b: BySource): BySourceBody {
  return { affiliate: b.affiliate, brand_deal: b.brand_deal, subscription: b.subscription };
}

function earningsBody(c: CharacterEarnings): CharacterEarningsBody {
  return { character_id: c.characterId, name: c.name, total: c.total, by_source: bySourceBody(c.bySource), clicks: c.clicks };
}

export function toSummaryBody(s: RevenueSummary): RevenueSummaryBody {
  return {
    from: s.range.start.toISOString(), to: s.range.end.toISOString(), currency: s.currency, total: s.total,
    by_source: bySourceBody(s.bySource), characters: s.characters.map(earningsBody),
  };
}

// Wire shapes, documented for the OpenAPI document.

export class LinkBody {
  @ApiProperty({ example: 'lnk_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ type: String, enum: PLATFORM_NAMES, nullable: true }) platform!: string | null;
  @ApiProperty({ example: 'https://shop.example.com/item/42?ref=studio' }) destination_url!: string;
  @ApiProperty({ example: 'spring-sale' }) shortcode!: string;
  @ApiProperty({ example: 'https://api.example.com/api/v1/l/spring-sale', description: 'The public address to share: 302 to destination_url.' }) short_url!: string;
  @ApiProperty({ type: 'integer', description: 'Counted clicks (people, not bots) written so far; exact once the clicks of the last MONETIZATION_CLICK_FLUSH_MS are flushed.' }) click_count!: number;
  @ApiProperty({ type: 'integer', description: 'Sum of the revenue entries that name this link, in minor units.' }) revenue!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class LinkEnvelope {
  @ApiProperty({ type: LinkBody }) link!: LinkBody;
}

export class LinkListBody {
  @ApiProperty({ type: [LinkBody] }) links!: LinkBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

class ClickDayBody {
  @ApiProperty({ format: 'date', example: '2025-01-31' }) date!: string;
  @ApiProperty({ type: 'integer' }) clicks!: number;
}

export class ClickSeriesBody {
  @ApiProperty({ example: 'lnk_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) link_id!: string;
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
  @ApiProperty({ type: 'integer', description: 'Clicks over the range.' }) total!: number;
  @ApiProperty({ type: [ClickDayBody], description: 'Every UTC day of the range, oldest first, zero where none were counted.' }) days!: ClickDayBody[];
}

export class RevenueEntryBody {
  @ApiProperty({ example: 'rvn_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) id!: string;
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ enum: REVENUE_SOURCES }) source!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Minor units (cents).' }) amount!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: string;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Null when none was given, or the link was deleted since.' }) link_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class RevenueEntryEnvelope {
  @ApiProperty({ type: RevenueEntryBody }) revenue_entry!: RevenueEntryBody;
}

export class RevenueListBody {
  @ApiProperty({ type: [RevenueEntryBody] }) revenue_entries!: RevenueEntryBody[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class BySourceBody {
  @ApiProperty({ type: 'integer' }) affiliate!: number;
  @ApiProperty({ type: 'integer' }) brand_deal!: number;
  @ApiProperty({ type: 'integer' }) subscription!: number;
}

export class CharacterEarningsBody {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7' }) character_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: 'integer' }) total!: number;
  @ApiProperty({ type: BySourceBody }) by_source!: BySourceBody;
  @ApiProperty({ type: 'integer', description: 'Counted clicks of the character’s links on the UTC days the range touches.' }) clicks!: number;
}

export class RevenueSummaryBody {
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time', description: 'Excluded.' }) to!: string;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ type: 'integer', description: 'Minor units.' }) total!: number;
  @ApiProperty({ type: BySourceBody }) by_source!: BySourceBody;
  @ApiProperty({ type: [CharacterEarningsBody], description: 'Characters with revenue or clicks in the range, highest total first.' }) characters!: CharacterEarningsBody[];
}
