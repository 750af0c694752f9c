import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../../core/index.js';
import { inTransaction, type Tx } from '../../../../platform/database/index.js';
import { outages } from '../../../../platform/health/index.js';
import { Outbox } from '../../../../platform/outbox/index.js';
import { Jobs, jobOutputs, type JobRecord } from '../../../../platform/queue/index.js';
import { BillingFacade } from '../../../billing/index.js';
import { CharactersFacade, type Character } from '../../../characters/index.js';
import { clampText, type ContentItem, type StoredMedia } from '../../domain/content-item.js';
import { canTransition, nextStatus } from '../../domain/content-status.js';
import { ContentItemRepository, type ContentItemChanges } from '../../infrastructure/content-item.repository.js';
import { ContentViews } from '../content-views.js';
import { MediaStore } from '../media-store.js';
import { recordStatusEvent } from '../status-events.js';
import type { CaptionDraft } from '../../../generation/index.js';
import { LEDGER_REASONS, payloadCount, type ItemJobType } from './job-types.js';

/** Either the item to work on, or the job's result when there is nothing (left) to do. */
export type Begun = { done: Record<string, unknown> } | { item: ContentItem; character: Character };

/**
 * The steps every item-generating job shares. They make a job idempotent: the item remembers
 * which job it waits for (`jobId`) and which job its media came from (`mediaJobId`), every step
 * is a conditional change under the item's row lock, and the media list is replaced in one
 * transaction at the end. The charge was taken when the job was ordered; only a failure of the
 * job (the failure hook, run once when the job row flips to failed) gives it back.
 */
@Injectable()
export class GenerationSteps {
  private readonly logger = new Logger('Content');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly media: MediaStore,
    private readonly views: ContentViews,
    private readonly outbox: Outbox,
    private readonly jobs: Jobs,
  ) {}

  /** queued → generating; a re-delivery of a job already generating carries on. */
  async begin(job: JobRecord<ItemJobType>): Promise<Begun> {
    const contentId = job.contentId;
    if (!contentId) throw new AppError('validation_failed', 'The job names no content item.');
    const out = await inTransaction(this.ds, async (tx): Promise<Begun & { changed?: boolean }> => {
      const item = await this.items.find(tx, job.workspaceId, contentId, { lock: true });
      // Deleted with its character before the work was done: failing the job refunds it.
      if (!item) throw new AppError('not_found', 'The content item was deleted before it was generated.');
      if (item.jobId !== job.id) return { done: { content_id: contentId, skipped: 'superseded' } };
      if (item.mediaJobId === job.id) return { done: resultOf(item) };
      if (item.status === 'failed') throw new AppError('upstream_failed', 'An earlier attempt of this generation failed.');
      const character = await this.characters.get(job.workspaceId, item.characterId, tx);
      if (item.status === 'generating') return { item, character, changed: false };
      const changes = { status: nextStatus(item.status, 'start'), updatedAt: new Date() };
      await this.items.update(tx, job.workspaceId, contentId, changes);
      return { item: { ...item, ...changes }, character, changed: true };
    });
    if (out.changed) await this.views.changed(job.workspaceId, contentId);
    return 'done' in out ? { done: out.done } : { item: out.item, character: out.character };
  }

  /**
   * generating → ready (approved under autopilot) with the new media replacing the old, and its
   * `content.ready` (`content.approved`) event. The job row ends completed in the same transaction
   * (`Jobs.settle`; the runner then announces it), so nobody reads a ready item whose job still
   * runs; its result is the item's with `notes` (how the media were made). A job that is no longer
   * the item's, or already finished, changes nothing.
   */
  async finish(job: JobRecord<ItemJobType>, media: StoredMedia[], text?: CaptionDraft, notes: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const contentId = job.contentId!;
    const out = await inTransaction(this.ds, async (tx) => {
      const item = await this.items.find(tx, job.workspaceId, contentId, { lock: true });
      if (!item) throw new AppError('not_found', 'The content item was deleted while it was generated.');
      if (item.jobId !== job.id || item.status !== 'generating') {
        return { result: item.mediaJobId === job.id ? resultOf(item) : { content_id: contentId, skipped: 'superseded' } };
      }
      const character = await this.characters.find(job.workspaceId, item.characterId, tx);
      const changes: ContentItemChanges = {
        status: nextStatus(item.status, 'finish', { autopilot: character?.autopilot ?? false }),
        media,
        mediaJobId: job.id,
        updatedAt: new Date(),
        ...textChanges(item, text),
      };
      await this.items.update(tx, job.workspaceId, contentId, changes);
      await recordStatusEvent(this.outbox, tx, item, item.status, changes.status!);
      // An item counts on its character once, when it is first made (not again on regeneration).
      if (item.mediaJobId === null) await this.characters.addContent(tx, job.workspaceId, item.characterId);
      const result = { ...resultOf({ ...item, ...changes }), ...notes };
      await this.jobs.settle(tx, job.workspaceId, job.id, { status: 'completed', result });
      return { result, replaced: item.media };
    });
    if (out.replaced) {
      await this.views.changed(job.workspaceId, contentId);
      await this.media.removeReplaced(out.replaced, media).catch((err: unknown) =>
        this.logger.warn({ msg: 'replaced media not removed', content_id: contentId, err: String(err) }),
      );
    }
    return out.result;
  }

  /**
   * Marks the item failed as soon as its job fails, so clients see it before the job row flips.
   * Never throws: the job's own failure is what must reach the runner, and the failure hook marks
   * the item if this could not.
   */
  async markFailed(job: JobRecord<ItemJobType>): Promise<void> {
    const contentId = job.contentId;
    if (!contentId) return;
    try {
      const changed = await inTransaction(this.ds, (tx) => this.failItem(tx, job));
      if (changed) await this.views.changed(job.workspaceId, contentId);
    } catch (err) {
      if (await outages.covers(err)) return; // the outage log says it once
      this.logger.warn({ msg: 'content not marked failed; the failure hook will', content_id: contentId, err: String(err) });
    }
  }

  /**
   * The failure hook's work, in the transaction that marks the job failed: the item fails (if the
   * handler could not mark it), and the job's charge comes back unless its media were delivered.
   */
  async onJobFailed(tx: Tx, job: JobRecord<ItemJobType>): Promise<void> {
    const markedHere = await this.failItem(tx, job);
    const item = job.contentId ? await this.items.find(tx, job.workspaceId, job.contentId) : null;
    // The hook has no after-commit step; this rare path announces from inside the transaction.
    if (markedHere && item) await this.views.announce(job.workspaceId, { item, job });
    const credits = payloadCount(job.payload.credits);
    if (credits === 0 || item?.mediaJobId === job.id) return;
    await this.billing.credit(tx, {
      workspaceId: job.workspaceId,
      amount: credits,
      reason: LEDGER_REASONS.refund,
      refType: 'content',
      refId: job.contentId ?? job.id,
    });
  }

  private async failItem(tx: Tx, job: JobRecord<ItemJobType>): Promise<boolean> {
    if (!job.contentId) return false;
    const item = await this.items.find(tx, job.workspaceId, job.contentId, { lock: true });
    if (!item || item.jobId !== job.id || !canTransition(item.status, 'fail')) return false;
    await this.items.update(tx, job.workspaceId, item.id, { status: nextStatus(item.status, 'fail'), updatedAt: new Date() });
    return true;
  }
}

/** A caption written by the job fills only what the client left empty. */
function textChanges(item: ContentItem, text?: CaptionDraft): ContentItemChanges {
  if (!text) return {};
  const clamped = clampText(text);
  const changes: ContentItemChanges = {};
  if (item.caption === null) changes.caption = clamped.caption;
  if (item.hashtags.length === 0) changes.hashtags = clamped.hashtags;
  if (item.cta === null) changes.cta = clamped.cta;
  return changes;
}

/** What the job made: the item, and its files (signed into URLs when the job is read). */
function resultOf(item: ContentItem): Record<string, unknown> {
  const files = item.media.flatMap((m) => [{ kind: m.kind, key: m.key }, ...(m.thumbnailKey ? [{ kind: 'thumbnail', key: m.thumbnailKey }] : [])]);
  return { content_id: item.id, status: item.status, media_count: item.media.length, ...jobOutputs(files) };
}

/** Whether the job should ask the text provider for a caption. */
export function needsCaption(item: ContentItem): boolean {
  return item.caption === null;
}
