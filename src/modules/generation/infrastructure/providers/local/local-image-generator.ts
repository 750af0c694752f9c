import { loadSharp } from '../../../../../platform/media/sharp.js';
import { ImageGenerator, type GeneratedMedia, type ImageRequest } from '../../../application/ports/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import { seedFrom } from '../shared/seeded.js';
import { applyStyle } from './lora-style.js';
import { blendInto, paint, patternSpec } from './pattern.js';

/**
 * zlib level of the PNGs: at 1024×1024, level 3 encodes in 5 ms against 15 ms at level 6, for files of
 * 42 KB instead of 33 KB. These images stand in for a provider's; encoding time is worker CPU.
 */
const PNG_COMPRESSION = 3;

/** How much of the pattern shows over an init image when the request does not say. */
const DEFAULT_STRENGTH = 0.65;

/**
 * Offline images: a gradient-and-discs PNG whose look is seeded by the prompt, the character
 * and the seed, so the same request gives the same bytes. Image-to-image blends the init image;
 * an offline LoRA's style grid is blended over the result.
 */
export class LocalImageGenerator extends ImageGenerator {
  readonly provider = 'local';

  async generate(req: ImageRequest, signal?: AbortSignal): Promise<GeneratedMedia[]> {
    const sharp = await loadSharp();
    const base = req.initImage ? await rawCover(req.initImage.bytes, req.width, req.height) : undefined;
    const images: GeneratedMedia[] = [];
    for (let i = 0; i < req.count; i++) {
      if (signal?.aborted) throw upstreamFailed('local', 'aborted', 'The image generation was cancelled.');
      const pixels = paint(patternSpec(seedFrom(req.prompt, req.negativePrompt, req.character.id, req.seed, i)), req.width, req.height);
      if (base) blendInto(pixels, base, Math.min(1, Math.max(0, req.strength ?? DEFAULT_STRENGTH)));
      // The seed ignores the LoRA on purpose: with and without it, only the style differs.
      if (req.lora?.style) applyStyle(pixels, req.width, req.height, req.lora.style, req.lora.scale);
      const bytes = await sharp(pixels, { raw: { width: req.width, height: req.height, channels: 3 } }).png({ compressionLevel: PNG_COMPRESSION, adaptiveFiltering: false }).toBuffer();
      images.push({ bytes, contentType: 'image/png', width: req.width, height: req.height });
    }
    return images;
  }
}

/** An image scaled to cover the size, as raw RGB, for blending. */
export async function rawCover(bytes: Buffer, width: number, height: number): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    return await sharp(bytes).rotate().resize(width, height, { fit: 'cover' }).removeAlpha().raw().toBuffer();
  } catch {
    throw upstreamFailed('local', 'bad_input', 'The init image cannot be decoded.');
  }
}
