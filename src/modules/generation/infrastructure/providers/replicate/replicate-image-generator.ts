import { ImageGenerator, type GeneratedMedia, type ImageRequest } from '../../../application/ports/index.js';
import { namedAspectRatio } from '../shared/aspect.js';
import { toDataUri } from '../shared/data-uri.js';
import { describeImage, inlineImage } from '../shared/image-input.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import type { ReplicateClient } from './replicate-client.js';

/** Most image models make at most four images per prediction; more are made in further runs. */
const MAX_OUTPUTS_PER_PREDICTION = 4;

/** Text-to-image and image-to-image on a Replicate model (flux-dev style inputs). */
export class ReplicateImageGenerator extends ImageGenerator {
  constructor(
    private readonly client: ReplicateClient,
    private readonly model: string,
  ) {
    super();
  }

  async generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]> {
    const init = req.initImage ? toDataUri(await inlineImage(req.initImage, req.width, req.height)) : undefined;
    const images: GeneratedMedia[] = [];
    for (let batch = 0; images.length < req.count; batch++) {
      const wanted = Math.min(MAX_OUTPUTS_PER_PREDICTION, req.count - images.length);
      const prediction = await this.client.run(this.model, imageInput(req, wanted, batch, init), signal);
      const files = await this.client.downloadOutputs(prediction, signal);
      if (files.length < wanted) {
        throw upstreamFailed('replicate', 'bad_response', `Replicate made ${files.length} of the ${wanted} images asked for.`, { prediction_id: prediction.id });
      }
      images.push(...(await Promise.all(files.slice(0, wanted).map((bytes) => describeImage('replicate', bytes)))));
    }
    return images;
  }
}

/** The model input: the prompt in the character's look, the size, and the init image when given. */
export function imageInput(req: ImageRequest, count: number, batch: number, initImage?: string): Record<string, unknown> {
  const aspect = namedAspectRatio(req.width, req.height);
  return {
    prompt: promptWithLook(req),
    num_outputs: count,
    ...(aspect ? { aspect_ratio: aspect } : { width: req.width, height: req.height }),
    output_format: 'png',
    ...(req.seed !== undefined ? { seed: req.seed + batch * MAX_OUTPUTS_PER_PREDICTION } : {}),
    ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}),
    ...(initImage ? { image: initImage, prompt_strength: req.strength ?? 0.8 } : {}),
  };
}

function promptWithLook(req: ImageRequest): string {
  const look = [req.character.aesthetic, ...req.character.stylePresets].filter((s): s is string => !!s && !req.prompt.toLowerCase().includes(s.toLowerCase()));
  return look.length ? `${req.prompt}, ${look.join(', ')}` : req.prompt;
}
