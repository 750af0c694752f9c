import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Platform } from '../../../core/index.js';
import { PostingHistorySource, type PostingHistory } from '../../publishing/index.js';
import { rankHours } from '../domain/best-hours.js';
import { AnalyticsReadsRepository } from '../infrastructure/analytics-reads.repository.js';

/** What other contexts may ask analytics; installed at boot as the slot planner's source of past engagement. */
@Injectable()
export class AnalyticsFacade extends PostingHistorySource {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly reads: AnalyticsReadsRepository,
  ) {
    super();
  }

  /**
   * The character's weekday × hour slots on each platform, in `timeZone`, best first by the mean
   * engagement of its measured posts there (the last 1000 per platform), and how many posts were
   * measured: the slot planner trusts them from 10 on (contract §15). One read for all platforms.
   */
  async historiesOf(workspaceId: string, characterId: string, platforms: readonly Platform[], timeZone: string): Promise<Partial<Record<Platform, PostingHistory>>> {
    const measured = await this.reads.measured(this.ds.manager, workspaceId, characterId, platforms);
    return Object.fromEntries(
      platforms.map((platform) => {
        const posts = measured.get(platform) ?? [];
        return [platform, { measuredPosts: posts.length, hours: rankHours(posts, timeZone) }];
      }),
    );
  }
}
