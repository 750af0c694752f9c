import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, newId } from '../../../../core/index.js';
import { inTransaction, isUniqueViolation, type Tx } from '../../../../platform/database/index.js';
import { JobHandler, Jobs, OnJobFailed, type JobContext, type JobRecord, type NewJob } from '../../../../platform/queue/index.js';
import { BillingFacade } from '../../../billing/index.js';
import { CharactersFacade, toCharacterBrief, type Character } from '../../../characters/index.js';
import { newContentItem, type ContentItem } from '../../domain/content-item.js';
import { DAYS_PER_WEEK } from '../../domain/pricing.js';
import { parseDate } from '../../domain/schedule-time.js';
import { planWeekItems, WEEK_VIDEO, weekSlots, type PlannedItem } from '../../domain/week-plan.js';
import { ContentItemRepository } from '../../infrastructure/content-item.repository.js';
import { ContentViews } from '../content-views.js';
import { TextGenerator, callProvider } from '../../../generation/index.js';
import { CONTENT_JOBS, LEDGER_REASONS, payloadCount, type WeekJobPayload } from './job-types.js';

/**
 * generate_week: plans seven days with the text provider, then creates every item with its own
 * (already paid) image or video job in one transaction. The items carry the week job's id and their slot,
 * unique together, so a re-delivered job finds its items instead of making them again.
 */
@Injectable()
export class WeekPlanJob {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly text: TextGenerator,
    private readonly jobs: Jobs,
    private readonly views: ContentViews,
  ) {}

  @JobHandler(CONTENT_JOBS.week)
  async run(ctx: JobContext<'generate_week'>): Promise<Record<string, unknown>> {
    const { job } = ctx;
    const payload = job.payload;
    await ctx.progress(5);
    let items = await this.items.listForWeekJob(this.ds.manager, job.workspaceId, job.id);
    if (items.length === 0) {
      const character = await this.characters.get(job.workspaceId, job.characterId ?? '');
      const planned = await this.plan(job, payload, character);
      await ctx.progress(60);
      items = await this.createItems(job, payload, character, planned);
    }
    await ctx.progress(80);
    await this.startItemJobs(job.workspaceId, items);
    await this.views.changed(job.workspaceId, ...items.map((i) => i.id));
    return { week: payload.week, items: items.length, content_ids: items.map((i) => i.id) };
  }

  /** Planning failed before any item existed: the whole week is given back. Once items exist, each item's own job refunds its image. */
  @OnJobFailed(CONTENT_JOBS.week)
  async refund(tx: Tx, job: JobRecord<'generate_week'>): Promise<void> {
    const credits = payloadCount(job.payload.credits);
    if (credits === 0 || (await this.items.countForWeekJob(tx, job.workspaceId, job.id)) > 0) return;
    await this.billing.credit(tx, { workspaceId: job.workspaceId, amount: credits, reason: LEDGER_REASONS.weekRefund, refType: 'job', refId: job.id });
  }

  private async plan(job: JobRecord<'generate_week'>, payload: WeekJobPayload, character: Character): Promise<PlannedItem[]> {
    const weekStart = parseDate(payload.week);
    if (weekStart === null) throw new AppError('validation_failed', 'The week job has no valid week.');
    const posts = await callProvider('text', () =>
      this.text.planWeek({
        character: toCharacterBrief(character), days: DAYS_PER_WEEK, postsPerDay: payload.posts_per_day, platforms: payload.platforms,
        trendingTopics: payload.trending_topics, guidance: payload.guidance ?? undefined, language: payload.language,
        contentTypes: weekSlots(payload.posts_per_day, payload.platforms).map((s) => s.contentType),
      }),
    );
    const timeZone = this.characters.postingTimezone(character);
    return planWeekItems(posts, { weekStart, postsPerDay: payload.posts_per_day, platforms: payload.platforms, timeZone });
  }

  private async createItems(job: JobRecord<'generate_week'>, payload: WeekJobPayload, character: Character, planned: PlannedItem[]): Promise<ContentItem[]> {
    try {
      return await inTransaction(this.ds, async (tx) => {
        const now = new Date();
        const made: ContentItem[] = [];
        for (const p of planned) {
          const item = newContentItem({
            id: newId('cnt'), workspaceId: job.workspaceId, characterId: character.id, platform: p.platform, contentType: p.contentType,
            kind: p.kind, imagePrompt: p.imagePrompt, caption: p.caption, hashtags: p.hashtags, cta: p.cta, language: payload.language,
            plannedFor: p.plannedFor, weekJobId: job.id, planIndex: p.planIndex, ...(p.kind === 'video' ? { video: { ...WEEK_VIDEO } } : {}),
          }, now);
          const media = await this.jobs.create(tx, this.mediaJob(job, payload, item));
          item.jobId = media.id;
          await this.items.insert(tx, item);
          made.push(item);
        }
        return made;
      });
    } catch (err) {
      // Another delivery of this job created the items first: use those.
      if (!isUniqueViolation(err, 'content_items_week_slot_uq')) throw err;
      return this.items.listForWeekJob(this.ds.manager, job.workspaceId, job.id);
    }
  }

  /** The item's (already paid) media job: its image, or its video on a video slot. */
  private mediaJob(job: JobRecord<'generate_week'>, payload: WeekJobPayload, item: ContentItem): NewJob<'generate_image' | 'generate_video'> {
    const owner = { workspaceId: job.workspaceId, characterId: item.characterId, contentId: item.id };
    if (item.kind === 'video') return { ...owner, jobType: CONTENT_JOBS.video, payload: { credits: payloadCount(payload.video_credits), paid_by: job.id } };
    return { ...owner, jobType: CONTENT_JOBS.image, payload: { credits: payloadCount(payload.image_credits), images: 1, paid_by: job.id } };
  }

  /** Sends each item's open media job; jobs already running or done are left to the queue. */
  private async startItemJobs(workspaceId: string, items: ContentItem[]): Promise<void> {
    for (const item of items) {
      if (!item.jobId) continue;
      const media = await this.jobs.get(workspaceId, item.jobId);
      if (media && (media.status === 'pending' || media.status === 'running')) await this.jobs.enqueue(media);
    }
  }
}
