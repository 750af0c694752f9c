import { ApiProperty } from '@nestjs/swagger';
import { JobDoc } from '../../../../platform/http/index.js';
import type { PostMetrics } from '../../../publishing/index.js';
import type { Overview } from '../../application/analytics.service.js';
import type { PostMetricsView } from '../../infrastructure/analytics-reads.repository.js';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toPostMetricsBody(p: PostMetricsView): Record<string, unknown> {
  return {
    scheduled_post_id: p.scheduledPostId, content_id: p.contentId, character_id: p.characterId, platform: p.platform,
    remote_url: p.remoteUrl, published_at: iso(p.publishedAt), metrics: metricsBody(p.metrics),
    engagement_rate: p.engagementRate, synced_at: iso(p.syncedAt), simulated: p.simulated,
  };
}

function metricsBody(m: PostMetrics): Record<string, number | null> {
  return { impressions: m.impressions, views: m.views, likes: m.likes, comments: m.comments, shares: m.shares, saves: m.saves };
}

export function toOverviewBody(o: Overview): Record<string, unknown> {
  return {
    from: o.range.from,
    to: o.range.to,
    totals: { posts: o.totals.posts, ...metricsBody(o.totals.metrics), engagement_rate: o.totals.engagementRate },
    followers: o.followers.map((f) => ({ date: f.date, platform: f.platform, count: f.count })),
    top_posts: o.topPosts.map(toPostMetricsBody),
    by_platform: o.byPlatform.map((p) => ({
      platform: p.platform, posts: p.posts, ...metricsBody(p.metrics), engagement_rate: p.engagementRate, followers: p.followers, synced_at: iso(p.syncedAt), simulated: p.simulated,
    })),
    synced_at: iso(o.syncedAt),
    simulated: o.simulated,
    earnings: {
      currency: o.earnings.currency,
      revenue: o.earnings.revenue,
      clicks: o.earnings.clicks,
      by_character: o.earnings.characters.map((c) => ({ character_id: c.characterId, revenue: c.revenue, clicks: c.clicks })),
    },
  };
}

export class MetricsDoc {
  @ApiProperty({ type: 'integer', nullable: true }) impressions!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) views!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) likes!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) comments!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) shares!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) saves!: number | null;
}

export class TotalsDoc extends MetricsDoc {
  @ApiProperty({ type: 'integer' }) posts!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Summed (likes + comments + shares + saves) / max(impressions, views).' }) engagement_rate!: number | null;
}

export class PostMetricsDoc {
  @ApiProperty() scheduled_post_id!: string;
  @ApiProperty() content_id!: string;
  @ApiProperty() character_id!: string;
  @ApiProperty({ enum: ['instagram', 'tiktok', 'twitter', 'youtube', 'pinterest'] }) platform!: string;
  @ApiProperty({ type: String, nullable: true }) remote_url!: string | null;
  @ApiProperty({ format: 'date-time' }) published_at!: string;
  @ApiProperty({ type: MetricsDoc }) metrics!: MetricsDoc;
  @ApiProperty({ type: Number, nullable: true, description: '(likes + comments + shares + saves) / max(impressions, views).' }) engagement_rate!: number | null;
  @ApiProperty({ format: 'date-time' }) synced_at!: string;
  @ApiProperty({ description: 'Deterministic numbers of a sandbox connection.' }) simulated!: boolean;
}

export class PostsPageDoc {
  @ApiProperty({ type: [PostMetricsDoc] }) posts!: PostMetricsDoc[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class FollowerPointDoc {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty() platform!: string;
  @ApiProperty({ type: 'integer' }) count!: number;
}

export class PlatformTotalsDoc extends TotalsDoc {
  @ApiProperty({ enum: ['instagram', 'tiktok', 'twitter', 'youtube', 'pinterest'] }) platform!: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The latest follower count in range.' }) followers!: number | null;
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) synced_at!: string | null;
  @ApiProperty() simulated!: boolean;
}

export class CharacterEarningsDoc {
  @ApiProperty({ example: 'char_01HV3K5Y8M2N4P6Q8R0S2T4V6W' }) character_id!: string;
  @ApiProperty({ type: 'integer', description: 'Revenue entries that occurred on the range’s days, in minor units.' }) revenue!: number;
  @ApiProperty({ type: 'integer', description: 'Counted (flushed) clicks of the character’s affiliate links on the range’s days.' }) clicks!: number;
}

export class EarningsDoc {
  @ApiProperty({ example: 'USD', description: 'The workspace’s currency (ISO 4217).' }) currency!: string;
  @ApiProperty({ type: 'integer', description: 'Minor units.' }) revenue!: number;
  @ApiProperty({ type: 'integer' }) clicks!: number;
  @ApiProperty({ type: [CharacterEarningsDoc], description: 'Characters with revenue or clicks in range (only the filtered one with character_id), highest revenue first.' }) by_character!: CharacterEarningsDoc[];
}

export class OverviewDoc {
  @ApiProperty({ format: 'date' }) from!: string;
  @ApiProperty({ format: 'date' }) to!: string;
  @ApiProperty({ type: TotalsDoc, description: 'posts, the summed metrics (null when no post reports one) and engagement_rate.' }) totals!: TotalsDoc;
  @ApiProperty({ type: [FollowerPointDoc] }) followers!: FollowerPointDoc[];
  @ApiProperty({ type: [PostMetricsDoc] }) top_posts!: PostMetricsDoc[];
  @ApiProperty({ type: [PlatformTotalsDoc], description: 'Per platform: posts, summed metrics, engagement_rate, latest followers in range.' }) by_platform!: PlatformTotalsDoc[];
  @ApiProperty({ type: String, nullable: true, format: 'date-time' }) synced_at!: string | null;
  @ApiProperty() simulated!: boolean;
  @ApiProperty({ type: EarningsDoc, description: 'Revenue and affiliate-link clicks per character over the same days (docs/monetization.md).' }) earnings!: EarningsDoc;
}

export class SyncJobEnvelope {
  @ApiProperty({ type: JobDoc, description: 'The sync_analytics job record.' }) job!: JobDoc;
}
