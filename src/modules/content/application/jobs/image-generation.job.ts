import { Injectable } from '@nestjs/common';
import { AppError } from '../../../../core/index.js';
import type { Tx } from '../../../../platform/database/index.js';
import { JobHandler, OnJobFailed, type JobContext, type JobRecord } from '../../../../platform/queue/index.js';
import { imageSize } from '../../domain/media-size.js';
import { imageCount } from '../../domain/pricing.js';
import { toCharacterBrief } from '../character-brief.js';
import { CharacterImages } from '../character-images.js';
import { MediaStore } from '../media-store.js';
import { ImageGenerator, TextGenerator } from '../ports/index.js';
import { callProvider } from '../provider-call.js';
import { GenerationSteps, needsCaption } from './generation-steps.js';
import { CONTENT_JOBS, payloadCount } from './job-types.js';

/**
 * generate_image: the item's images (image-to-image from the character's primary reference when
 * it has one uploaded), and its caption when the client gave none.
 */
@Injectable()
export class ImageGenerationJob {
  constructor(
    private readonly steps: GenerationSteps,
    private readonly images: ImageGenerator,
    private readonly text: TextGenerator,
    private readonly references: CharacterImages,
    private readonly media: MediaStore,
  ) {}

  @JobHandler(CONTENT_JOBS.image)
  async run(ctx: JobContext): Promise<Record<string, unknown>> {
    try {
      return await this.generate(ctx);
    } catch (err) {
      await this.steps.markFailed(ctx.job);
      throw err;
    }
  }

  @OnJobFailed(CONTENT_JOBS.image)
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
    const count = payloadCount(job.payload.images) || imageCount(item.contentType);
    const size = imageSize(item.contentType);
    const init = await this.references.primaryImage(job.workspaceId, character.id);
    await ctx.progress(20);
    const generated = await callProvider('image', () =>
      this.images.generate({
        jobId: job.id, workspaceId: job.workspaceId, character: brief, prompt: item.imagePrompt, width: size.width, height: size.height, count,
        ...(init ? { initImage: { bytes: init.bytes, contentType: init.contentType } } : {}),
      }),
    );
    if (generated.length < count) throw new AppError('upstream_failed', `The image provider returned ${generated.length} of ${count} images.`);
    await ctx.progress(70);
    const media = await this.media.saveImages(item.id, job.id, generated.slice(0, count), size);
    await ctx.progress(85);
    const caption = needsCaption(item)
      ? await callProvider('text', () =>
          this.text.caption({ character: brief, prompt: item.imagePrompt, platform: item.platform, contentType: item.contentType, language: item.language ?? undefined }),
        )
      : undefined;
    await ctx.progress(95);
    return this.steps.finish(job, media, caption);
  }
}
