import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../../platform/database/index.js';
import { JobHandler, OnJobFailed, type JobContext, type JobRecord } from '../../../../platform/queue/index.js';
import { videoSize } from '../../domain/media-size.js';
import { VIDEO_DEFAULT_ASPECT, VIDEO_DEFAULT_SECONDS } from '../../domain/platforms.js';
import { MediaStore } from '../media-store.js';
import { ASPECT_RATIOS, VideoGenerator, callProvider, type AspectRatio } from '../../../generation/index.js';
import { GenerationSteps } from './generation-steps.js';
import { ItemGeneration, type GenerationInput, type MadeMedia } from './item-generation.js';
import { CONTENT_JOBS } from './job-types.js';

/** generate_video: the item's video and thumbnail from its scene description, and a caption. */
@Injectable()
export class VideoGenerationJob {
  constructor(
    private readonly steps: GenerationSteps,
    private readonly generation: ItemGeneration,
    private readonly videos: VideoGenerator,
    private readonly media: MediaStore,
  ) {}

  @JobHandler(CONTENT_JOBS.video)
  run(ctx: JobContext<'generate_video'>): Promise<Record<string, unknown>> {
    return this.generation.run(ctx, (input) => this.makeVideo(ctx, input));
  }

  @OnJobFailed(CONTENT_JOBS.video)
  async refund(tx: Tx, job: JobRecord<'generate_video'>): Promise<void> {
    await this.steps.onJobFailed(tx, job);
  }

  private async makeVideo(ctx: JobContext<'generate_video'>, { item, brief, reference }: GenerationInput): Promise<MadeMedia> {
    const { job } = ctx;
    const durationSeconds = item.video?.durationSeconds ?? VIDEO_DEFAULT_SECONDS;
    const aspectRatio = asAspect(item.video?.aspectRatio);
    const out = await callProvider('video', () =>
      this.videos.generate({
        jobId: job.id, character: brief, sceneDescription: item.imagePrompt, durationSeconds, aspectRatio,
        ...(reference ? { referenceImage: { bytes: reference.bytes, contentType: reference.contentType } } : {}),
      }),
    );
    await ctx.progress(75);
    return { media: [await this.media.saveVideo(item.id, job.id, out, { ...videoSize(aspectRatio), durationSeconds })] };
  }
}

function asAspect(value: string | undefined): AspectRatio {
  return (ASPECT_RATIOS as readonly string[]).includes(value ?? '') ? (value as AspectRatio) : VIDEO_DEFAULT_ASPECT;
}
