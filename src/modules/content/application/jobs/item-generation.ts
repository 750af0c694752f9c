import { Injectable } from '@nestjs/common';
import { outages } from '../../../../platform/health/index.js';
import type { JobContext } from '../../../../platform/queue/index.js';
import type { ContentItem, StoredMedia } from '../../domain/content-item.js';
import { toCharacterBrief } from '../../../characters/index.js';
import { CharacterImages, type PrimaryImageBytes } from '../character-images.js';
import { TextGenerator, callProvider, type CharacterBrief } from '../../../generation/index.js';
import { GenerationSteps, needsCaption } from './generation-steps.js';
import type { ItemJobType } from './job-types.js';

/** What a media-making step gets: the item, its character's brief and primary image, if any. */
export interface GenerationInput {
  item: ContentItem;
  brief: CharacterBrief;
  reference: PrimaryImageBytes | null;
}

/** What it gives back: the stored media, and what the job's result says of how they were made. */
export interface MadeMedia {
  media: StoredMedia[];
  notes?: Record<string, unknown>;
}

type MakeMedia = (input: GenerationInput) => Promise<MadeMedia>;

/**
 * The frame every item-generating job runs in: begin the item, let `makeMedia` produce and store
 * its media, write the caption when the client gave none, finish (the job's result is the item's,
 * with the step's notes). A failure marks the item failed
 * before it reaches the runner (whose failure hook then refunds), unless the run was let go at a stop
 * or met an outage.
 */
@Injectable()
export class ItemGeneration {
  constructor(
    private readonly steps: GenerationSteps,
    private readonly text: TextGenerator,
    private readonly references: CharacterImages,
  ) {}

  async run(ctx: JobContext<ItemJobType>, makeMedia: MakeMedia): Promise<Record<string, unknown>> {
    try {
      return await this.generate(ctx, makeMedia);
    } catch (err) {
      // A job let go at a stop runs again elsewhere, and one that met a database or Redis outage
      // runs again once it is over (the runner): its item is not failed, whatever this run met.
      if (!ctx.signal.aborted && !(await outages.explains(err))) await this.steps.markFailed(ctx.job);
      throw err;
    }
  }

  private async generate(ctx: JobContext<ItemJobType>, makeMedia: MakeMedia): Promise<Record<string, unknown>> {
    const { job } = ctx;
    const begun = await this.steps.begin(job);
    if ('done' in begun) return begun.done;
    const { item, character } = begun;
    await ctx.progress(10);
    const brief = toCharacterBrief(character);
    const reference = await this.references.primaryImage(job.workspaceId, character.id);
    await ctx.progress(20);
    const { media, notes } = await makeMedia({ item, brief, reference });
    await ctx.progress(85);
    const caption = needsCaption(item)
      ? await callProvider('text', () =>
          this.text.caption({ character: brief, prompt: item.imagePrompt, platform: item.platform, contentType: item.contentType, language: item.language ?? undefined }),
        )
      : undefined;
    await ctx.progress(95);
    return this.steps.finish(job, media, caption, notes);
  }
}
