import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../../platform/database/index.js';
import { JobHandler, OnJobFailed, type JobContext, type JobRecord } from '../../../../platform/queue/index.js';
import { videoSize } from '../../domain/media-size.js';
import { VIDEO_DEFAULT_ASPECT, VIDEO_DEFAULT_SECONDS } from '../../domain/platforms.js';
import { toCharacterBrief } from '../character-brief.js';
import { CharacterImages } from '../character-images.js';
import { MediaStore } from '../media-store.js';
import { ASPECT_RATIOS, TextGenerator, VideoGenerator, type AspectRatio } from '../ports/index.js';
import { callProvider } from '../provider-call.js';
import { GenerationSteps, needsCaption } from './generation-steps.js';
import { CONTENT_JOBS } from './job-types.js';

/** generate_video: the item's video and thumbnail from its scene description, and a caption. */
@Injectable()
export class VideoGenerationJob {
  constructor(
    private readonly steps: GenerationSteps,
    private readonly videos: VideoGenerator,
    private readonly text: TextGenerator,
    private readonly references: CharacterImages,
    private readonly media: MediaStore,
  ) {}

  @JobHandler(CONTENT_JOBS.video)
  async run(ctx: JobContext): Promise<Record<string, unknown>> {
    try {
      return await this.generate(ctx);
    } catch (err) {
      await this.steps.markFailed(ctx.job);
      throw err;
    }
  }

  @OnJobFailed(CONTENT_JOBS.video)
  async refund(tx: Tx, job: JobRecord): Promise<void> {
    await this.steps.onJobFailed(tx, job);
  }

  private async generate(ctx: JobContext): Promise<Record<string, unknown>> {
    const { job } = ctx;
    const begun = await this.steps.begin(job);
    if ('done' in begun) return begun.done;
    const { item, character } = begun;
    await ctx.progress(10);
    const brief = toCharacterBrief(character);
    const durationSeconds = item.video?.durationSeconds ?? VIDEO_DEFAULT_SECONDS;
    const aspectRatio = asAspect(item.video?.aspectRatio);
    const reference = await this.references.primaryImage(job.workspaceId, character.id);
    await ctx.progress(20);
    const out = await callProvider('video', () =>
      this.videos.generate({
        jobId: job.id, character: brief, sceneDescription: item.imagePrompt, durationSeconds, aspectRatio,
        ...(reference ? { referenceImage: { bytes: reference.bytes, contentType: reference.contentType } } : {}),
      }),
    );
    await ctx.progress(75);
    const medium = await this.media.saveVideo(item.id, job.id, out, { ...videoSize(aspectRatio), durationSeconds });
    await ctx.progress(85);
    const caption = needsCaption(item)
      ? await callProvider('text', () =>
          this.text.caption({ character: brief, prompt: item.imagePrompt, platform: item.platform, contentType: item.contentType, language: item.language ?? undefined }),
        )
      : undefined;
    await ctx.progress(95);
    return this.steps.finish(job, [medium], caption);
  }
}

function asAspect(value: string | undefined): AspectRatio {
  return (ASPECT_RATIOS as readonly string[]).includes(value ?? '') ? (value as AspectRatio) : VIDEO_DEFAULT_ASPECT;
}
