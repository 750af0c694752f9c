import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { abortableSleep } from '../../../platform/outbound/index.js';
import { JobHandler, OnJobFailed, type JobContext, type JobRecord } from '../../../platform/queue/index.js';
import { LORA_JOB, type Lora } from '../domain/lora.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';
import { LoraTrainer, type TrainingRequest } from './ports/lora-trainer.js';
import { trainedResult, TrainingOutcomes } from './training-outcomes.js';
import { TrainingSet } from './training-set.js';

type TrainCtx = JobContext<'train_lora'>;

/**
 * train_lora: starts the training at the provider, then waits with it until it ends. Webhooks
 * (API side) and this job's polls report through the same conditional transitions, so whichever
 * sees the end first settles it and the others change nothing. Re-delivered after a crash or a
 * stop, the job finds the provider's training id on the row and waits again rather than starting
 * a second training. A row gone or given to a newer job (DELETE, the character deleted) ends the
 * wait and cancels the provider's training.
 */
@Injectable()
export class TrainLoraJob {
  private readonly logger = new Logger('LoraTraining');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly loras: LoraRepository,
    private readonly trainer: LoraTrainer,
    private readonly outcomes: TrainingOutcomes,
    private readonly trainingSet: TrainingSet,
    private readonly config: AppConfig,
  ) {}

  @JobHandler(LORA_JOB)
  async run(ctx: TrainCtx): Promise<Record<string, unknown>> {
    let lora = await this.current(ctx.job);
    if (lora?.status === 'queued' && !lora.providerTrainingId) lora = await this.start(ctx, lora);
    if (lora) lora = await this.waitForEnd(ctx, lora);
    return this.outcomeOf(ctx.job, lora);
  }

  @OnJobFailed(LORA_JOB)
  async onFailed(tx: Tx, job: JobRecord<'train_lora'>): Promise<void> {
    const lora = await this.loras.find(tx, job.workspaceId, job.payload.lora_id);
    if (!lora || lora.jobId !== job.id) return;
    await this.outcomes.failInTx(tx, lora, job.error ?? { code: 'job_failed', message: 'The training job failed.' });
  }

  /** The job's LoRA, or null when the row is gone or belongs to a newer training. */
  private async current(job: JobRecord<'train_lora'>): Promise<Lora | null> {
    const lora = await this.loras.find(this.ds.manager, job.workspaceId, job.payload.lora_id);
    return lora && lora.jobId === job.id ? lora : null;
  }

  private async start(ctx: TrainCtx, lora: Lora): Promise<Lora | null> {
    const providerTrainingId = await this.startAtTrainer(ctx, lora);
    this.logger.log({ msg: 'lora training started', lora_id: lora.id, job_id: ctx.job.id, provider: this.trainer.provider, provider_training_id: providerTrainingId });
    if (await this.outcomes.started(lora, providerTrainingId)) return { ...lora, status: 'training', providerTrainingId };
    // Deleted while we were starting it: the provider's training must not run on at our cost.
    await this.trainer.cancel(providerTrainingId);
    return null;
  }

  /** Until the LoRA is ready or failed (or gone): re-read the row often, ask the provider now and then. */
  private async waitForEnd(ctx: TrainCtx, first: Lora): Promise<Lora | null> {
    const { pollIntervalMs, checkIntervalMs, timeoutMs } = this.config.lora;
    const pollEvery = this.trainer.provider === 'local' ? checkIntervalMs : pollIntervalMs;
    const deadline = (ctx.job.startedAt ?? ctx.job.createdAt).getTime() + timeoutMs;
    let lora: Lora | null = first;
    let nextPoll = 0;
    while (lora && (lora.status === 'queued' || lora.status === 'training') && !ctx.signal.aborted) {
      if (lora.progress > 0) await ctx.progress(Math.min(99, lora.progress));
      if (Date.now() >= nextPoll) {
        await this.poll(ctx, lora);
        nextPoll = Date.now() + pollEvery;
      }
      if (Date.now() > deadline) await this.timeOut(lora);
      else await abortableSleep(checkIntervalMs, ctx.signal).catch(() => undefined);
      const previous: Lora = lora;
      lora = await this.current(ctx.job);
      if (!lora && previous.providerTrainingId) await this.trainer.cancel(previous.providerTrainingId);
    }
    return lora;
  }

  /** Asks the provider; a training it no longer knows (the offline trainer after a restart) starts again. */
  private async poll(ctx: TrainCtx, lora: Lora): Promise<void> {
    if (!lora.providerTrainingId) return;
    const state = await this.trainer.status(lora.providerTrainingId).catch((err: unknown) => {
      // A failed poll is not a failed training: the next poll (or a webhook) tells.
      this.logger.warn({ msg: 'lora training poll failed', lora_id: lora.id, err: err instanceof Error ? err.message : String(err) });
      return undefined;
    });
    if (state === null) await this.restart(ctx, lora);
    else if (state) await this.outcomes.apply(lora, state);
  }

  private async restart(ctx: TrainCtx, lora: Lora): Promise<void> {
    this.logger.warn({ msg: 'lora training unknown to its trainer; starting it again', lora_id: lora.id, provider_training_id: lora.providerTrainingId });
    const providerTrainingId = await this.startAtTrainer(ctx, lora);
    if (!(await this.outcomes.restarted(lora, providerTrainingId))) await this.trainer.cancel(providerTrainingId);
  }

  private async startAtTrainer(ctx: TrainCtx, lora: Lora): Promise<string> {
    const req: TrainingRequest = {
      loraId: lora.id,
      workspaceId: lora.workspaceId,
      characterId: lora.characterId,
      baseModel: lora.baseModel,
      steps: lora.trainingSteps,
      rank: lora.loraRank,
      triggerWord: lora.triggerWord,
      images: await this.trainingSet.load(lora),
    };
    return (await this.trainer.start(req, ctx.signal)).providerTrainingId;
  }

  private async timeOut(lora: Lora): Promise<void> {
    if (lora.providerTrainingId) await this.trainer.cancel(lora.providerTrainingId);
    const minutes = Math.round(this.config.lora.timeoutMs / 60_000);
    await this.outcomes.failNow(lora, { code: 'training_timeout', message: `The training did not finish within ${minutes} minutes; it was cancelled and refunded.` });
  }

  private outcomeOf(job: JobRecord<'train_lora'>, lora: Lora | null): Record<string, unknown> {
    if (!lora) return { lora_id: job.payload.lora_id, cancelled: true };
    if (lora.status === 'failed') {
      throw new AppError('upstream_failed', lora.error?.message ?? 'The training failed.', { provider: this.trainer.provider, lora_id: lora.id });
    }
    return trainedResult(lora);
  }
}
