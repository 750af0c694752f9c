import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { JobHandler, Jobs, jobOutputs, OnJobFailed, type JobContext, type JobRecord } from '../../../platform/queue/index.js';
import { Storage } from '../../../platform/storage/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade } from '../../characters/index.js';
import { ContentFacade } from '../../content/index.js';
import { callProvider, TalkingHeadGenerator, type Speech, type TalkingHeadVideo } from '../../generation/index.js';
import { VoiceFacade } from '../../voice/index.js';
import { platformFor, TALKING_HEAD_JOB, talkingHeadKeys, type TalkingHeadGeneration } from '../domain/talking-head.js';
import { TalkingHeadRepository } from '../infrastructure/talking-head.repository.js';

/**
 * talking_head: the speech first (the character's voice), then the video of its face speaking it;
 * a full generation becomes a `video` content item. Ends its generation with one conditional
 * update; a failure refunds in the transaction that marks the job failed.
 */
@Injectable()
export class TalkingHeadJob {
  private readonly logger = new Logger('TalkingHead');

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly generations: TalkingHeadRepository,
    private readonly characters: CharactersFacade,
    private readonly voices: VoiceFacade,
    private readonly renderer: TalkingHeadGenerator,
    private readonly content: ContentFacade,
    private readonly storage: Storage,
    private readonly billing: BillingFacade,
    private readonly jobs: Jobs,
  ) {}

  @JobHandler(TALKING_HEAD_JOB)
  async run(ctx: JobContext<'talking_head'>): Promise<Record<string, unknown>> {
    const { job } = ctx;
    const generation = await this.generations.find(this.ds.manager, job.workspaceId, job.payload.generation_id);
    if (!generation) throw AppError.notFound('Talking head');
    if (generation.status === 'completed') return resultOf(generation);
    await this.generations.start(this.ds.manager, job.workspaceId, generation.id);
    const image = await this.primaryImage(generation);
    await ctx.progress(5);
    const speech = await this.voices.speak(job.workspaceId, generation.characterId, generation.script, ctx.signal);
    await ctx.progress(25);
    let reported = 25;
    const onProgress = (p: number) => {
      const scaled = 25 + Math.floor((Math.max(0, Math.min(100, p)) * 60) / 100);
      if (scaled >= reported + 5) void ctx.progress((reported = scaled)).catch(() => undefined);
    };
    const video = await callProvider('talking-head', () =>
      this.renderer.render({ jobId: job.id, image, speech: { bytes: speech.bytes, contentType: speech.contentType, durationSeconds: speech.durationSeconds }, aspectRatio: generation.aspectRatio }, ctx.signal, onProgress),
    );
    await ctx.progress(90);
    return resultOf(await this.finish(job, generation, speech, video));
  }

  @OnJobFailed(TALKING_HEAD_JOB)
  async onFailed(tx: Tx, job: JobRecord<'talking_head'>): Promise<void> {
    const failure = job.error ?? { code: 'job_failed', message: 'The talking head failed.' };
    const ended = await this.generations.end(tx, job.workspaceId, job.payload.generation_id, { status: 'failed', error: failure });
    if (ended && ended.creditsCharged > 0) {
      await this.billing.credit(tx, { workspaceId: job.workspaceId, amount: ended.creditsCharged, reason: 'talking_head_refund', refType: 'talking_head', refId: ended.id });
    }
  }

  private async primaryImage(g: TalkingHeadGeneration): Promise<{ bytes: Buffer; contentType: string }> {
    const primary = await this.characters.primaryReferenceImage(g.workspaceId, g.characterId);
    const stored = primary && (await this.storage.get(primary.storageKey));
    if (!stored) throw new AppError('reference_image_required', 'The character’s primary reference image is gone.');
    return { bytes: stored.body, contentType: stored.contentType };
  }

  /** Stores the speech, the video and its thumbnail under keys made from the id (a re-run overwrites its own), then ends the generation. */
  private async finish(job: JobRecord<'talking_head'>, g: TalkingHeadGeneration, speech: Speech, out: TalkingHeadVideo): Promise<TalkingHeadGeneration> {
    const audioKey = talkingHeadKeys.audio(g.id, speech.format);
    await this.storage.put(audioKey, speech.bytes, speech.contentType);
    const videoKey = talkingHeadKeys.video(g.id);
    await this.storage.put(videoKey, out.video.bytes, out.video.contentType);
    const thumbnailKey = out.thumbnail ? talkingHeadKeys.thumbnail(g.id, out.thumbnail.contentType === 'image/png' ? 'png' : 'jpg') : null;
    if (out.thumbnail && thumbnailKey) await this.storage.put(thumbnailKey, out.thumbnail.bytes, out.thumbnail.contentType);
    const item = g.kind === 'full'
      ? await this.content.addFinishedVideo({
          workspaceId: g.workspaceId, characterId: g.characterId, platform: platformFor(g.aspectRatio), prompt: g.script.slice(0, 1000), caption: g.script.slice(0, 2200),
          aspectRatio: g.aspectRatio, durationSeconds: out.durationSeconds, video: out.video, thumbnail: out.thumbnail, sourceJobId: job.id,
        })
      : null;
    // The generation and its job end in one transaction: no read finds one completed and the other running.
    const ended = await inTransaction(this.ds, async (tx) => {
      const row = await this.generations.end(tx, g.workspaceId, g.id, {
        status: 'completed', audioKey, videoKey, thumbnailKey, durationSeconds: out.durationSeconds, contentId: item?.id ?? null,
      });
      if (row) await this.jobs.settle(tx, g.workspaceId, job.id, { status: 'completed', result: resultOf(row) });
      return row;
    });
    if (item) await this.content.announce(g.workspaceId, item.id);
    this.logger.log({ msg: 'talking head completed', generation_id: g.id, job_id: job.id, seconds: out.durationSeconds, content_id: item?.id ?? null });
    return ended ?? { ...g, status: 'completed', audioKey, videoKey, thumbnailKey, durationSeconds: out.durationSeconds, contentId: item?.id ?? null };
  }
}

function resultOf(g: TalkingHeadGeneration): Record<string, unknown> {
  const files = [['video', g.videoKey], ['thumbnail', g.thumbnailKey], ['audio', g.audioKey]] as const;
  const outputs = files.flatMap(([kind, key]) => (key ? [{ kind, key }] : []));
  return { generation_id: g.id, duration_seconds: g.durationSeconds, content_id: g.contentId, ...jobOutputs(outputs) };
}
