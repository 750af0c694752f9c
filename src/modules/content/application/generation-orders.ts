import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import { ComposedStatement, isForeignKeyViolation, type Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord, type NewJob } from '../../../platform/queue/index.js';
import { BillingFacade, type CreditChange } from '../../billing/index.js';
import type { ContentItem } from '../domain/content-item.js';
import { ContentItemRepository } from '../infrastructure/content-item.repository.js';
import { imageCharge, imageCount, videoCharge, type ContentPrices } from '../domain/pricing.js';
import { CONTENT_JOBS, LEDGER_REASONS } from './jobs/job-types.js';

/**
 * Orders the generation of an item: the charge and the job row commit together with the work or not
 * at all. The payload records what was paid, which is what a failure refunds.
 */
@Injectable()
export class GenerationOrders {
  readonly prices: ContentPrices;

  constructor(
    config: AppConfig,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
    private readonly items: ContentItemRepository,
  ) {
    this.prices = config.prices;
  }

  chargeFor(item: Pick<ContentItem, 'kind' | 'contentType' | 'video'>): number {
    if (item.kind === 'video') return videoCharge(item.video?.durationSeconds ?? 0, this.prices);
    return imageCharge(item.contentType, this.prices);
  }

  /**
   * Orders a new item in one statement, run in autocommit: the item's row, its job's row, the debit
   * and its ledger row. Inside a transaction, the debit's lock on the workspace row was held from the
   * debit's answer until this process got round to sending COMMIT; under load that is the event
   * loop's delay, and every paid order of the workspace queued behind it (bench at 150 orders/s:
   * p99 230 ms, sessions waiting on the row lock while its holder sat idle in transaction). Now the
   * row is locked only inside PostgreSQL, until the statement commits.
   * Throws `insufficient_credits` (nothing written), or `not_found` when the character is deleted
   * between the caller's check and this statement.
   */
  async place(item: ContentItem): Promise<{ item: ContentItem; job: JobRecord }> {
    const job = this.jobs.prepare(this.jobFor(item));
    const ordered: ContentItem = { ...item, jobId: job.id };
    const statement = new ComposedStatement();
    this.jobs.addInsert(statement, job);
    this.items.addInsert(statement, ordered);
    try {
      await this.billing.payFor(statement, this.debitFor(ordered));
    } catch (err) {
      if (isForeignKeyViolation(err, 'content_items_character_id_fkey')) throw AppError.notFound('Character');
      throw err;
    }
    return { item: ordered, job };
  }

  /**
   * Creates the item's job and debits its price inside the caller's transaction (402, and it rolls
   * back, when short). The debit locks the workspace row until commit: callers make this the last
   * step of their transaction.
   */
  async order(tx: Tx, item: ContentItem): Promise<JobRecord> {
    const job = await this.jobs.create(tx, this.jobFor(item));
    const debit = this.debitFor(item);
    if (debit) await this.billing.debit(tx, debit);
    return job;
  }

  private jobFor(item: ContentItem): NewJob<'generate_image' | 'generate_video'> {
    const credits = this.chargeFor(item);
    const owner = { workspaceId: item.workspaceId, characterId: item.characterId, contentId: item.id };
    return item.kind === 'video'
      ? { ...owner, jobType: CONTENT_JOBS.video, payload: { credits } }
      : { ...owner, jobType: CONTENT_JOBS.image, payload: { credits, images: imageCount(item.contentType) } };
  }

  /** The item's price as a debit, or null when it is free. */
  private debitFor(item: ContentItem): CreditChange | null {
    const credits = this.chargeFor(item);
    if (credits <= 0) return null;
    return {
      workspaceId: item.workspaceId,
      amount: credits,
      reason: item.kind === 'video' ? LEDGER_REASONS.video : LEDGER_REASONS.image,
      refType: 'content',
      refId: item.id,
    };
  }
}
