import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig, type LoraBaseModel } from '../../../config/index.js';
import { newId, type Caller } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { AuditLog } from '../../audit/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { consistencyTier, defaultTriggerWord, LORA_JOB, trainRefusal, type Lora } from '../domain/lora.js';
import { LoraRepository } from '../infrastructure/lora.repository.js';
import { LoraTrainer } from './ports/lora-trainer.js';

export interface TrainRequest {
  baseModel: LoraBaseModel;
  trainingSteps: number;
  loraRank: number;
  triggerWord?: string;
}

/** A character's LoRA as the routes show it: the row (null before the first training), its image count and job. */
export interface LoraView {
  characterId: string;
  lora: Lora | null;
  imageCount: number;
  job: JobRecord | null;
}

/** Reads, starts and removes a character's LoRA training (contract §10). */
@Injectable()
export class LoraService {
  private readonly logger = new Logger('LoraTraining');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly loras: LoraRepository,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
    private readonly storage: Storage,
    private readonly trainer: LoraTrainer,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  async view(workspaceId: string, characterId: string): Promise<LoraView> {
    await this.characters.get(workspaceId, characterId);
    const m = this.ds.manager;
    const [lora, imageCount] = await Promise.all([this.loras.findByCharacter(m, workspaceId, characterId), this.loras.countImages(m, workspaceId, characterId)]);
    const job = lora ? await this.jobs.get(workspaceId, lora.jobId) : null;
    return { characterId, lora, imageCount, job };
  }

  /**
   * Queues a training. Checks in contract order after the route's plan and the body's base model:
   * 404 character, 409 a training under way, 409 image count, 402 credits; the charge, the job row,
   * the LoRA row and the character's status commit together, or none of them.
   */
  async train(actor: Pick<Caller, 'workspaceId' | 'userId'>, characterId: string, req: TrainRequest): Promise<{ lora: Lora; job: JobRecord; imageCount: number }> {
    const { workspaceId } = actor;
    await this.characters.getForGeneration(workspaceId, characterId);
    const started = await inTransaction(this.ds, async (tx) => {
      const character = await this.characters.getForUpdate(tx, workspaceId, characterId);
      const current = await this.loras.findByCharacter(tx, workspaceId, characterId, { lock: true });
      const imageCount = await this.loras.countImages(tx, workspaceId, characterId);
      const refusal = trainRefusal({ status: current?.status ?? 'none', imageCount });
      if (refusal) throw refusal;
      const loraId = current?.id ?? newId('lora');
      const credits = this.config.prices.lora;
      const job = await this.jobs.create(tx, { workspaceId, jobType: LORA_JOB, characterId, payload: { lora_id: loraId, credits } });
      if (credits > 0) await this.billing.debit(tx, { workspaceId, amount: credits, reason: 'lora_training', refType: 'lora_training', refId: job.id });
      const lora = await this.loras.queue(tx, {
        ...blankLora(workspaceId, characterId, loraId, job.id),
        baseModel: req.baseModel,
        trainingSteps: req.trainingSteps,
        loraRank: req.loraRank,
        triggerWord: req.triggerWord ?? defaultTriggerWord(character.name, characterId),
        provider: this.trainer.provider,
        creditsCharged: credits,
      });
      if (!lora) throw trainRefusal({ status: 'queued', imageCount: 0 })!;
      await this.mirror(tx, lora);
      await this.recordStart(tx, actor, lora);
      return { lora, job, imageCount };
    });
    await this.jobs.enqueue(started.job);
    this.logger.log({ msg: 'lora training queued', lora_id: started.lora.id, workspace_id: workspaceId, character_id: characterId, job_id: started.job.id });
    return started;
  }

  private recordStart(tx: Tx, actor: Pick<Caller, 'workspaceId' | 'userId'>, lora: Lora): Promise<void> {
    return this.audit.record(tx, {
      workspaceId: actor.workspaceId, actorUserId: actor.userId, action: 'lora.training_started', targetType: 'lora', targetId: lora.id,
      details: { character_id: lora.characterId, base_model: lora.baseModel, credits: lora.creditsCharged },
    });
  }

  /**
   * Cancels a queued or running training and removes the LoRA and its images: the character is back
   * to `none`. A training the provider had not started yet is refunded in full; one it had started
   * is cancelled there and not refunded (contract §10).
   */
  async remove(actor: Pick<Caller, 'workspaceId' | 'userId'>, characterId: string): Promise<void> {
    const { workspaceId } = actor;
    const removed = await inTransaction(this.ds, async (tx) => {
      await this.characters.getForUpdate(tx, workspaceId, characterId);
      const lora = await this.loras.findByCharacter(tx, workspaceId, characterId, { lock: true });
      if (lora) await this.discard(tx, lora);
      await this.recordRemoval(tx, actor, characterId, lora);
      const imageKeys = await this.loras.deleteImages(tx, workspaceId, characterId);
      await this.characters.setTraining(tx, workspaceId, characterId, { loraTrainingStatus: 'none', faceConsistencyTier: consistencyTier('none') });
      return { lora, imageKeys };
    });
    const { lora, imageKeys } = removed;
    if (lora?.providerTrainingId && (lora.status === 'queued' || lora.status === 'training')) await this.trainer.cancel(lora.providerTrainingId);
    await Promise.all(imageKeys.map((key) => this.storage.delete(key).catch((err: unknown) => this.logger.warn({ msg: 'could not remove stored object', key, err: String(err) }))));
    this.logger.log({ msg: 'lora removed', workspace_id: workspaceId, character_id: characterId, lora_id: lora?.id ?? null, was: lora?.status ?? 'none' });
  }

  /** Recorded even with no LoRA yet: the training images went all the same. */
  private recordRemoval(tx: Tx, actor: Pick<Caller, 'workspaceId' | 'userId'>, characterId: string, lora: Lora | null): Promise<void> {
    return this.audit.record(tx, {
      workspaceId: actor.workspaceId, actorUserId: actor.userId, action: 'lora.deleted', targetType: 'lora', targetId: lora?.id ?? null,
      details: { character_id: characterId, was: lora?.status ?? 'none' },
    });
  }

  /** Inside the removing transaction: the job cancelled, a not-yet-started training refunded, the row gone. */
  private async discard(tx: Tx, lora: Lora): Promise<void> {
    const active = lora.status === 'queued' || lora.status === 'training';
    if (active) await this.jobs.cancel(tx, lora.workspaceId, lora.jobId);
    if (active && !lora.providerTrainingId && lora.creditsCharged > 0) {
      await this.billing.credit(tx, { workspaceId: lora.workspaceId, amount: lora.creditsCharged, reason: 'lora_training_refund', refType: 'lora_training', refId: lora.jobId });
    }
    await this.loras.delete(tx, lora.workspaceId, lora.id);
  }

  private mirror(tx: Tx, lora: Lora): Promise<void> {
    return this.characters.setTraining(tx, lora.workspaceId, lora.characterId, { loraTrainingStatus: lora.status, faceConsistencyTier: consistencyTier(lora.status) });
  }
}

function blankLora(workspaceId: string, characterId: string, id: string, jobId: string): Omit<Lora, 'baseModel' | 'trainingSteps' | 'loraRank' | 'triggerWord' | 'provider' | 'creditsCharged'> {
  const now = new Date();
  return {
    id,
    workspaceId,
    characterId,
    status: 'queued',
    progress: 0,
    jobId,
    providerTrainingId: null,
    weightsUrl: null,
    providerVersion: null,
    style: null,
    error: null,
    trainedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}
