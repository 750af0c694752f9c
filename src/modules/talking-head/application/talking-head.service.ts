import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { AppError, newId, type Page, type PageRequest } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { Jobs, type JobRecord } from '../../../platform/queue/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { pricing, TALKING_HEAD_JOB, talkingHeadRefusal, type GenerationKind, type TalkingHeadGeneration, type ThAspectRatio, type ThPrices } from '../domain/talking-head.js';
import { TalkingHeadRepository } from '../infrastructure/talking-head.repository.js';

export interface StartedGeneration {
  generation: TalkingHeadGeneration;
  job: JobRecord;
  pricing: { estimatedSeconds: number; credits: number };
}

/** Accepts talking heads (charged when accepted) and answers their status and history (contract §12). */
@Injectable()
export class TalkingHeadService {
  private readonly logger = new Logger('TalkingHead');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly generations: TalkingHeadRepository,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
    private readonly config: AppConfig,
  ) {}

  /** Checks in order: 404 character, 409 talking heads off, 409 no primary image, 402 credits; then charge, job and row together. */
  async start(workspaceId: string, characterId: string, req: { kind: GenerationKind; script: string; aspectRatio: ThAspectRatio }): Promise<StartedGeneration> {
    await this.assertCanSpeak(workspaceId, characterId);
    const price = pricing(req.kind, req.script, this.prices);
    const id = newId('th');
    await this.characters.getForGeneration(workspaceId, characterId);
    const started = await inTransaction(this.ds, async (tx) => {
      await this.characters.getForUpdate(tx, workspaceId, characterId);
      await this.assertCanSpeak(workspaceId, characterId, tx);
      const job = await this.jobs.create(tx, { workspaceId, jobType: TALKING_HEAD_JOB, characterId, payload: { generation_id: id, credits: price.credits } });
      if (price.credits > 0) {
        await this.billing.debit(tx, { workspaceId, amount: price.credits, reason: `talking_head_${req.kind}`, refType: 'talking_head', refId: id });
      }
      const generation: TalkingHeadGeneration = {
        id, workspaceId, characterId, kind: req.kind, status: 'queued', script: req.script, aspectRatio: req.aspectRatio, audioKey: null, videoKey: null,
        thumbnailKey: null, durationSeconds: null, contentId: null, creditsCharged: price.credits, jobId: job.id, error: null, createdAt: new Date(), finishedAt: null,
      };
      await this.generations.insert(tx, generation);
      return { generation, job };
    });
    await this.jobs.enqueue(started.job);
    this.logger.log({ msg: 'talking head queued', workspace_id: workspaceId, character_id: characterId, generation_id: id, kind: req.kind, credits: price.credits });
    return { ...started, pricing: price };
  }

  async get(workspaceId: string, id: string): Promise<{ generation: TalkingHeadGeneration; job: JobRecord | null }> {
    const generation = await this.generations.find(this.ds.manager, workspaceId, id);
    if (!generation) throw AppError.notFound('Talking head');
    return { generation, job: await this.jobs.get(workspaceId, generation.jobId) };
  }

  async list(workspaceId: string, characterId: string, page: PageRequest): Promise<Page<TalkingHeadGeneration>> {
    await this.characters.get(workspaceId, characterId);
    return this.generations.list(this.ds.manager, workspaceId, characterId, page);
  }

  private get prices(): ThPrices {
    const p = this.config.prices;
    return { preview: p.talkingHeadPreview, perSecond: p.talkingHeadPerSecond, minSeconds: p.talkingHeadMinSeconds };
  }

  private async assertCanSpeak(workspaceId: string, characterId: string, tx?: Tx): Promise<void> {
    const character = await this.characters.get(workspaceId, characterId, tx);
    const primary = await this.characters.primaryReferenceImage(workspaceId, characterId, tx);
    const refusal = talkingHeadRefusal({ talkingHeadEnabled: character.talkingHeadEnabled, hasPrimaryImage: primary !== null });
    if (refusal) throw refusal;
  }
}
