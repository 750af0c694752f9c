import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { BillingFacade } from '../../billing/index.js';
import type { ContentItem } from '../domain/content-item.js';
import { imageCharge, imageCount, videoCharge, type ContentPrices } from '../domain/pricing.js';
import { CONTENT_JOBS, LEDGER_REASONS } from './jobs/job-types.js';

/**
 * Orders the generation of an item: the charge and the job row, inside the caller's transaction,
 * so the work and its price commit together or not at all. The payload records what was paid,
 * which is what a failure refunds.
 */
@Injectable()
export class GenerationOrders {
  readonly prices: ContentPrices;

  constructor(
    config: AppConfig,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
  ) {
    this.prices = config.prices;
  }

  chargeFor(item: Pick<ContentItem, 'kind' | 'contentType' | 'video'>): number {
    if (item.kind === 'video') return videoCharge(item.video?.durationSeconds ?? 0, this.prices);
    return imageCharge(item.contentType, this.prices);
  }

  /** Creates the item's job and debits its price (402, and the transaction rolls back, when short). */
  async order(tx: Tx, item: ContentItem): Promise<JobRecord> {
    const job = await this.createJob(tx, item);
    await this.charge(tx, item);
    return job;
  }

  createJob(tx: Tx, item: ContentItem): Promise<JobRecord> {
    const video = item.kind === 'video';
    const credits = this.chargeFor(item);
    return this.jobs.create(tx, {
      workspaceId: item.workspaceId,
      jobType: video ? CONTENT_JOBS.video : CONTENT_JOBS.image,
      characterId: item.characterId,
      contentId: item.id,
      payload: video ? { credits } : { credits, images: imageCount(item.contentType) },
    });
  }

  /**
   * The debit locks the workspace row until commit, and every paid request of the workspace
   * queues on that lock: callers make it the last statement of their transaction.
   */
  async charge(tx: Tx, item: ContentItem): Promise<void> {
    const credits = this.chargeFor(item);
    if (credits <= 0) return;
    await this.billing.debit(tx, {
      workspaceId: item.workspaceId,
      amount: credits,
      reason: item.kind === 'video' ? LEDGER_REASONS.video : LEDGER_REASONS.image,
      refType: 'content',
      refId: item.id,
    });
  }
}
