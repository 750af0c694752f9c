import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Outbox } from '../../../platform/outbox/index.js';
import { Jobs } from '../../../platform/queue/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { consistencyTier, type Lora, type LoraFailure, type LoraStatus } from '../domain/lora.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';
import type { TrainingState } from './ports/lora-trainer.js';

const ACTIVE: readonly LoraStatus[] = ['queued', 'training'];

/**
 * The one place a training's state changes after it started, whoever reports it: a webhook, a
 * poll from the waiting job, or the job's own failure. Each change is a conditional update in one
 * transaction with the character's mirror of the status, the customer event (`lora.ready`,
 * `lora.failed`) and, for a failure, the refund; so of two reports of the same end, exactly one
 * changes anything (and makes one event), and the character never disagrees.
 */
@Injectable()
export class TrainingOutcomes {
  private readonly logger = new Logger('LoraTraining');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly loras: LoraRepository,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Applies what the provider says of `lora`'s current training. With `deliveryId` (a webhook), a
   * delivery seen before changes nothing. Answers whether anything changed.
   */
  apply(lora: Lora, state: TrainingState, deliveryId?: string): Promise<boolean> {
    return inTransaction(this.ds, async (tx) => {
      if (deliveryId && lora.providerTrainingId && !(await this.loras.recordDelivery(tx, deliveryId, lora.providerTrainingId))) return false;
      switch (state.status) {
        case 'starting':
          return false;
        case 'processing':
          return state.progress === null ? false : this.loras.advance(tx, lora.workspaceId, lora.id, lora.jobId, Math.min(99, Math.max(0, Math.round(state.progress))));
        case 'succeeded':
          return this.succeed(tx, lora, state);
        case 'failed':
          return this.fail(tx, lora, { code: 'training_failed', message: `The training failed at the provider: ${state.error}`.slice(0, 1000) });
        case 'canceled':
          return this.fail(tx, lora, { code: 'training_canceled', message: 'The provider cancelled the training.' });
      }
    });
  }

  /** Marks the training started at the provider: queued → training. False when it was cancelled meanwhile. */
  started(lora: Lora, providerTrainingId: string): Promise<boolean> {
    return inTransaction(this.ds, async (tx) => {
      const moved = await this.loras.move(tx, lora.workspaceId, lora.id, lora.jobId, ['queued'], 'training', { providerTrainingId, progress: 0 });
      if (moved) await this.mirror(tx, moved);
      return moved !== null;
    });
  }

  /** The trainer forgot the training and it was started again under a new id (still training). */
  async restarted(lora: Lora, providerTrainingId: string): Promise<boolean> {
    return (await this.loras.move(this.ds.manager, lora.workspaceId, lora.id, lora.jobId, ['training'], 'training', { providerTrainingId, progress: 0 })) !== null;
  }

  /** The training failed on our side (the job's failure, a timeout): failed and refunded, unless it already ended. */
  failInTx(tx: Tx, lora: Lora, failure: LoraFailure): Promise<boolean> {
    return this.fail(tx, lora, failure);
  }

  failNow(lora: Lora, failure: LoraFailure): Promise<boolean> {
    return inTransaction(this.ds, (tx) => this.fail(tx, lora, failure));
  }

  private async succeed(tx: Tx, lora: Lora, state: Extract<TrainingState, { status: 'succeeded' }>): Promise<boolean> {
    const { weights } = state;
    const moved = await this.loras.move(tx, lora.workspaceId, lora.id, lora.jobId, ACTIVE, 'ready', {
      progress: 100,
      weightsUrl: weights.weightsUrl,
      providerVersion: weights.version,
      style: weights.style,
      error: null,
      trainedAt: new Date(),
    });
    if (!moved) return false;
    await this.mirror(tx, moved);
    await this.outbox.record(tx, { type: 'lora.ready', workspaceId: moved.workspaceId, payload: { characterId: moved.characterId } });
    await this.jobs.settle(tx, moved.workspaceId, moved.jobId, { status: 'completed', result: trainedResult(moved) });
    this.logger.log({ msg: 'lora ready', lora_id: lora.id, workspace_id: lora.workspaceId, character_id: lora.characterId, job_id: lora.jobId });
    return true;
  }

  private async fail(tx: Tx, lora: Lora, failure: LoraFailure): Promise<boolean> {
    const moved = await this.loras.move(tx, lora.workspaceId, lora.id, lora.jobId, ACTIVE, 'failed', { error: failure });
    if (!moved) return false;
    await this.mirror(tx, moved);
    await this.outbox.record(tx, { type: 'lora.failed', workspaceId: moved.workspaceId, payload: { characterId: moved.characterId } });
    // The job fails as the waiting run would fail it (upstream_failed, the training's message); a no-op when the job is what failed.
    await this.jobs.settle(tx, moved.workspaceId, moved.jobId, { status: 'failed', error: { code: 'upstream_failed', message: failure.message } });
    if (moved.creditsCharged > 0) {
      await this.billing.credit(tx, {
        workspaceId: moved.workspaceId,
        amount: moved.creditsCharged,
        reason: 'lora_training_refund',
        refType: 'lora_training',
        refId: moved.jobId,
      });
    }
    this.logger.warn({ msg: 'lora training failed', lora_id: lora.id, workspace_id: lora.workspaceId, job_id: lora.jobId, code: failure.code, refunded: moved.creditsCharged });
    return true;
  }

  /** The character shows the LoRA's status and the tier it gives, in the same transaction. */
  private mirror(tx: Tx, lora: Lora): Promise<void> {
    return this.characters.setTraining(tx, lora.workspaceId, lora.characterId, { loraTrainingStatus: lora.status, faceConsistencyTier: consistencyTier(lora.status) });
  }
}

/** A finished training's job result: the same whether the waiting run or a report ends the job. */
export function trainedResult(lora: Lora): Record<string, unknown> {
  return { lora_id: lora.id, status: lora.status, trigger_word: lora.triggerWord, provider_version: lora.providerVersion };
}
