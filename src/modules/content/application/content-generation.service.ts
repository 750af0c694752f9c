import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../core/index.js';
import { inTransaction } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { newContentItem, type ContentItem, type ContentType } from '../domain/content-item.js';
import { defaultVideoType, type PlatformName } from '../domain/platforms.js';
import { weekPlanCharge } from '../domain/pricing.js';
import { formatDate, localDay, parseDate } from '../domain/schedule-time.js';
import { WEEK_VIDEO, weekSlots } from '../domain/week-plan.js';
import { ContentViews } from './content-views.js';
import { GenerationOrders } from './generation-orders.js';
import { CONTENT_JOBS, LEDGER_REASONS, type WeekJobPayload } from './jobs/job-types.js';

export interface GenerateImageRequest {
  characterId: string;
  type: ContentType;
  platform: PlatformName;
  prompt: string;
  caption?: string;
  hashtags?: string[];
  cta?: string;
}

export interface GenerateVideoRequest {
  characterId: string;
  platform: PlatformName;
  sceneDescription: string;
  type?: ContentType;
  durationSeconds: number;
  aspectRatio: string;
}

export interface GenerateWeekRequest {
  characterId: string;
  week?: string;
  postsPerDay: number;
  platforms: string[];
  trendingTopics: string[];
  guidance?: string;
  language: string;
}

/** An ordered item and the job that will make it, as written. */
export interface Ordered {
  item: ContentItem;
  job: JobRecord;
}

/** Starts generation: the item, its charge and its job in one transaction, the queue message after. */
@Injectable()
export class ContentGenerationService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly orders: GenerationOrders,
    private readonly jobs: Jobs,
    private readonly views: ContentViews,
  ) {}

  generateImage(workspaceId: string, req: GenerateImageRequest): Promise<Ordered> {
    return this.create(workspaceId, req.characterId, (id, now) =>
      newContentItem({
        id, workspaceId, characterId: req.characterId, platform: req.platform, contentType: req.type, kind: 'image',
        imagePrompt: req.prompt, caption: req.caption ?? null, hashtags: req.hashtags ?? [], cta: req.cta ?? null,
      }, now),
    );
  }

  generateVideo(workspaceId: string, req: GenerateVideoRequest): Promise<Ordered> {
    return this.create(workspaceId, req.characterId, (id, now) =>
      newContentItem({
        id, workspaceId, characterId: req.characterId, platform: req.platform, contentType: req.type ?? defaultVideoType(req.platform),
        kind: 'video', imagePrompt: req.sceneDescription, video: { durationSeconds: req.durationSeconds, aspectRatio: req.aspectRatio },
      }, now),
    );
  }

  /** Pays the whole week up front (contract §3: per item, plus its image or video) and leaves the planning to the job: 202 semantics. */
  async generateWeek(workspaceId: string, req: GenerateWeekRequest): Promise<JobRecord> {
    const job = await inTransaction(this.ds, async (tx) => {
      const character = await this.characters.getForGeneration(workspaceId, req.characterId, tx);
      const timeZone = this.characters.postingTimezone(character);
      const weekStart = req.week === undefined ? localDay(new Date(), timeZone) : parseDate(req.week);
      if (weekStart === null) throw new AppError('validation_failed', 'week must be a date (YYYY-MM-DD)', [{ field: 'week', message: 'week must be a date (YYYY-MM-DD)' }]);
      const charge = weekPlanCharge(weekSlots(req.postsPerDay, req.platforms), WEEK_VIDEO.durationSeconds, this.orders.prices);
      const payload: WeekJobPayload = {
        week: formatDate(weekStart), posts_per_day: req.postsPerDay, platforms: req.platforms, trending_topics: req.trendingTopics,
        guidance: req.guidance ?? null, language: req.language, credits: charge.total, image_credits: charge.perItemImage, video_credits: charge.perItemVideo,
      };
      const created = await this.jobs.create(tx, { workspaceId, jobType: CONTENT_JOBS.week, characterId: character.id, payload });
      if (charge.total > 0) {
        await this.billing.debit(tx, { workspaceId, amount: charge.total, reason: LEDGER_REASONS.week, refType: 'job', refId: created.id });
      }
      return created;
    });
    await this.jobs.enqueue(job);
    return job;
  }

  private async create(workspaceId: string, characterId: string, draft: (id: string, now: Date) => ContentItem): Promise<Ordered> {
    await this.characters.getForGeneration(workspaceId, characterId);
    // The item, its job and its charge in one statement: the workspace row is never locked across a round trip.
    const ordered = await this.orders.place(draft(newId('cnt'), new Date()));
    // Answered as written: once enqueued the job may already be running (and its row change).
    const job = { ...ordered.job };
    await this.jobs.enqueue(ordered.job);
    await this.views.announce(workspaceId, { item: ordered.item, job });
    return { item: ordered.item, job };
  }
}
