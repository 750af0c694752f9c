import { ImageGenerator, type GeneratedMedia, type ImageLora, type ImageRequest } from '../../../application/ports/index.js';
import { namedAspectRatio, nearestAspectRatio } from '../shared/aspect.js';
import { toDataUri } from '../shared/data-uri.js';
import { describeImage, inlineImage } from '../shared/image-input.js';
import { promptWithLook } from '../shared/prompt.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import type { ReplicateClient } from './replicate-client.js';

/** Most image models make at most four images per prediction; more are made in further runs. */
const MAX_OUTPUTS_PER_PREDICTION = 4;

export type LoraImageModels = Readonly<Record<ImageLora['baseModel'], string>>;

/**
 * Text-to-image and image-to-image on a Replicate model (flux-dev style inputs). A character's
 * trained LoRA switches to the LoRA-capable model of its base (`loraModels`), since the plain
 * flux-dev model takes no weights.
 */
export class ReplicateImageGenerator extends ImageGenerator {
  readonly provider = 'replicate';

  constructor(
    private readonly client: ReplicateClient,
    private readonly model: string,
    private readonly loraModels: LoraImageModels,
  ) {
    super();
  }

  async generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]> {
    const init = req.initImage ? toDataUri(await inlineImage(req.initImage, req.width, req.height)) : undefined;
    const lora = replicateLora(req);
    const model = lora ? this.loraModels[lora.baseModel] : this.model;
    const images: GeneratedMedia[] = [];
    for (let batch = 0; images.length < req.count; batch++) {
      const wanted = Math.min(MAX_OUTPUTS_PER_PREDICTION, req.count - images.length);
      const prediction = await this.client.run(model, imageInput(req, wanted, batch, init, inputFamily(model, lora)), signal);
      const files = await this.client.downloadOutputs(prediction, signal);
      if (files.length < wanted) {
        throw upstreamFailed('replicate', 'bad_response', `Replicate made ${files.length} of the ${wanted} images asked for.`, { prediction_id: prediction.id });
      }
      images.push(...(await Promise.all(files.slice(0, wanted).map((bytes) => describeImage('replicate', bytes)))));
    }
    return images;
  }
}

/**
 * The LoRA this adapter can apply: one with provider weights. An offline LoRA (no weights URL) is
 * ignored entirely, trigger word included: its style vector means nothing to Replicate, and its
 * trigger word is a token no Replicate model was trained on.
 */
function replicateLora(req: ImageRequest): (ImageLora & { weightsUrl: string }) | undefined {
  const lora = req.lora;
  return lora && lora.weightsUrl ? { ...lora, weightsUrl: lora.weightsUrl } : undefined;
}

/**
 * Which input schema a model takes. Replicate refuses an input property the model's schema does
 * not declare (422), so the two families get only their own: flux-dev (and flux-dev-lora) take
 * `aspect_ratio` and `output_format` but no size or negative prompt; cog-sdxl takes `width`,
 * `height` and `negative_prompt` but no `aspect_ratio` or `output_format` (it answers PNG).
 */
export type InputFamily = 'flux' | 'sdxl';

export function inputFamily(model: string, lora?: ImageLora): InputFamily {
  return lora?.baseModel === 'sdxl' || /(^|\/)sdxl(:|$)/.test(model) ? 'sdxl' : 'flux';
}

/**
 * The model input: the prompt in the character's look, the size, the init image when given, and
 * the character's LoRA weights with its trigger word in the prompt.
 */
export function imageInput(req: ImageRequest, count: number, batch: number, initImage?: string, family: InputFamily = 'flux'): Record<string, unknown> {
  const lora = replicateLora(req);
  return {
    prompt: withTrigger(promptWithLook(req), lora),
    num_outputs: count,
    ...(family === 'sdxl'
      ? { width: req.width, height: req.height, ...(req.negativePrompt ? { negative_prompt: req.negativePrompt } : {}) }
      : { aspect_ratio: namedAspectRatio(req.width, req.height) ?? nearestAspectRatio(req.width, req.height), output_format: 'png' }),
    ...(req.seed !== undefined ? { seed: req.seed + batch * MAX_OUTPUTS_PER_PREDICTION } : {}),
    ...(initImage ? { image: initImage, prompt_strength: req.strength ?? 0.8 } : {}),
    ...(lora ? loraInput(lora) : {}),
  };
}

/** flux-dev-lora takes the training's weights URL as `lora_weights`; cog-sdxl as `replicate_weights`. */
function loraInput(lora: ImageLora & { weightsUrl: string }): Record<string, unknown> {
  return lora.baseModel === 'sdxl'
    ? { replicate_weights: lora.weightsUrl, lora_scale: lora.scale }
    : { lora_weights: lora.weightsUrl, lora_scale: lora.scale };
}

/** The trigger word is what makes the weights draw the character: every training caption held it. */
function withTrigger(prompt: string, lora: ImageLora | undefined): string {
  if (!lora || lora.triggerWord === '' || prompt.includes(lora.triggerWord)) return prompt;
  return `${lora.triggerWord}, ${prompt}`;
}
