import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Platform } from '../../../core/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { PostingHistorySource, type PostingHistory } from '../../publishing/index.js';
import { rankHours, type HourSlot } from '../domain/best-hours.js';
import { AnalyticsReadsRepository } from '../infrastructure/analytics-reads.repository.js';

/** What other contexts may ask analytics; installed at boot as the slot planner's source of past engagement. */
@Injectable()
export class AnalyticsFacade extends PostingHistorySource {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly reads: AnalyticsReadsRepository,
    private readonly characters: CharactersFacade,
  ) {
    super();
  }

  async historyOf(workspaceId: string, characterId: string, platform: Platform): Promise<PostingHistory> {
    const { slots, measuredPosts } = await this.bestHours(workspaceId, characterId, platform);
    return { measuredPosts, hours: slots };
  }

  /**
   * The character's weekday × hour slots on a platform, in its posting timezone, best first by the
   * mean engagement of its measured posts there (the last 1000), and how many posts were measured:
   * the slot planner trusts them from 10 on (contract §15). A foreign character is 404.
   */
  async bestHours(workspaceId: string, characterId: string, platform: Platform): Promise<{ slots: HourSlot[]; measuredPosts: number }> {
    const character = await this.characters.get(workspaceId, characterId);
    const measured = await this.reads.measured(this.ds.manager, workspaceId, characterId, platform);
    return { slots: rankHours(measured, this.characters.postingTimezone(character)), measuredPosts: measured.length };
  }
}
