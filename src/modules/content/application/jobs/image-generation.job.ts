import { Injectable } from '@nestjs/common';
import { AppError } from '../../../../core/index.js';
import type { Tx } from '../../../../platform/database/index.js';
import { JobHandler, OnJobFailed, type JobContext, type JobRecord } from '../../../../platform/queue/index.js';
import { imageSize } from '../../domain/media-size.js';
import { imageCount } from '../../domain/pricing.js';
import { MediaStore } from '../media-store.js';
import { ImageGeneratorSeam, callProvider, type DrawnRoute, type ImageLora } from '../../../generation/index.js';
import { LoraFacade } from '../../../lora/index.js';
import { GenerationSteps } from './generation-steps.js';
import { ItemGeneration, type GenerationInput, type MadeMedia } from './item-generation.js';
import { CONTENT_JOBS, payloadCount } from './job-types.js';

/**
 * generate_image: the item's images (image-to-image from the character's primary reference when
 * it has one uploaded, with its LoRA while one is ready), and its caption when the client gave none.
 */
@Injectable()
export class ImageGenerationJob {
  constructor(
    private readonly steps: GenerationSteps,
    private readonly generation: ItemGeneration,
    private readonly images: ImageGeneratorSeam,
    private readonly media: MediaStore,
    private readonly loras: LoraFacade,
  ) {}

  @JobHandler(CONTENT_JOBS.image)
  run(ctx: JobContext<'generate_image'>): Promise<Record<string, unknown>> {
    return this.generation.run(ctx, async (input) => this.makeImages(ctx, input, await this.loras.readyFor(ctx.job.workspaceId, input.item.characterId)));
  }

  @OnJobFailed(CONTENT_JOBS.image)
  async refund(tx: Tx, job: JobRecord<'generate_image'>): Promise<void> {
    await this.steps.onJobFailed(tx, job);
  }

  private async makeImages(ctx: JobContext<'generate_image'>, { item, brief, reference }: GenerationInput, lora: ImageLora | null): Promise<MadeMedia> {
    const { job } = ctx;
    const count = payloadCount(job.payload.images) || imageCount(item.contentType);
    const size = imageSize(item.contentType);
    const { media: generated, route } = await callProvider('image', () =>
      this.images.draw({
        jobId: job.id, workspaceId: job.workspaceId, character: brief, prompt: item.imagePrompt, width: size.width, height: size.height, count,
        ...(reference ? { initImage: { bytes: reference.bytes, contentType: reference.contentType } } : {}),
        ...(lora ? { lora } : {}),
      }),
    );
    if (generated.length < count) throw new AppError('upstream_failed', `The image provider returned ${generated.length} of ${count} images.`);
    await ctx.progress(70);
    const media = await this.media.saveImages(item.id, job.id, generated.slice(0, count), size);
    return { media, notes: { ...routeNotes(route), ...(lora ? { lora_id: lora.id } : {}) } };
  }
}

/** The result names the path that drew the images (contract §13) and the LoRA they were drawn with (§10). */
function routeNotes(r: DrawnRoute | null): Record<string, unknown> {
  return r ? { route: r.route, provider: r.provider, endpoint_id: r.endpointId, fallback_reason: r.fallbackReason } : {};
}
