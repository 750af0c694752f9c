import { createHash } from 'node:crypto';
import { loadSharp } from '../../../../../platform/media/sharp.js';
import {
  VideoGenerator,
  type AspectRatio,
  type GeneratedMedia,
  type MotionTransferRequest,
  type VideoRequest,
} from '../../../application/ports/index.js';
import { frameSize } from '../shared/aspect.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import { seedFrom } from '../shared/seeded.js';
import { rawCover } from './local-image-generator.js';
import { blendInto, paint, patternSpec } from './pattern.js';

type VideoResult = { video: GeneratedMedia; thumbnail?: GeneratedMedia };

const FRAMES = 8;
const LONG_SIDE = 256;

/**
 * Offline videos: a small looping animated GIF (sharp encodes it) whose discs drift across a
 * gradient, with the reference or character image blended in, and a PNG of its first frame.
 * Deterministic; the duration reported is the one asked for, and the GIF's frame delays add up to it.
 */
export class LocalVideoGenerator extends VideoGenerator {
  async generate(req: VideoRequest, signal?: AbortSignal): Promise<VideoResult> {
    const seed = seedFrom(req.sceneDescription, req.character.id, req.durationSeconds, req.aspectRatio);
    return render({ seed, aspectRatio: req.aspectRatio, durationSeconds: req.durationSeconds, base: req.referenceImage?.bytes, baseWeight: 0.6, signal });
  }

  async motionTransfer(req: MotionTransferRequest, signal?: AbortSignal): Promise<VideoResult> {
    const driving = createHash('sha256').update(req.referenceVideo.bytes).digest('hex');
    const seed = seedFrom('motion', req.character.id, driving, req.durationSeconds, req.aspectRatio);
    return render({ seed, aspectRatio: req.aspectRatio, durationSeconds: req.durationSeconds, base: req.characterImage.bytes, baseWeight: 0.35, signal });
  }
}

interface RenderSpec {
  seed: number;
  aspectRatio: AspectRatio;
  durationSeconds: number;
  base?: Buffer;
  /** How much of the pattern shows over the base image. */
  baseWeight: number;
  signal?: AbortSignal;
}

async function render(spec: RenderSpec): Promise<VideoResult> {
  const sharp = await loadSharp();
  const { width, height } = frameSize(spec.aspectRatio, LONG_SIDE);
  const base = spec.base ? await rawCover(spec.base, width, height) : undefined;
  const pattern = patternSpec(spec.seed);
  const frameBytes = width * height * 3;
  const strip = Buffer.alloc(frameBytes * FRAMES);
  for (let i = 0; i < FRAMES; i++) {
    if (spec.signal?.aborted) throw upstreamFailed('local', 'aborted', 'The video generation was cancelled.');
    // Phase runs out and back so the loop has no jump.
    const frame = paint(pattern, width, height, Math.sin((Math.PI * i) / FRAMES));
    if (base) blendInto(frame, base, spec.baseWeight);
    frame.copy(strip, i * frameBytes);
  }
  const raw = { width, height: height * FRAMES, channels: 3 as const, pageHeight: height };
  const video = await sharp(strip, { raw }).gif({ delay: frameDelays(spec.durationSeconds), loop: 0, effort: 1, dither: 0 }).toBuffer();
  const thumbnail = await sharp(strip.subarray(0, frameBytes), { raw: { width, height, channels: 3 } }).png().toBuffer();
  return {
    video: { bytes: video, contentType: 'image/gif', width, height, durationSeconds: spec.durationSeconds },
    thumbnail: { bytes: thumbnail, contentType: 'image/png', width, height },
  };
}

/** Per-frame delays (ms, in GIF's 10 ms steps) that add up to the duration. */
export function frameDelays(durationSeconds: number): number[] {
  const totalCs = Math.max(FRAMES, Math.round(durationSeconds * 100));
  return Array.from({ length: FRAMES }, (_, i) => (Math.floor((totalCs * (i + 1)) / FRAMES) - Math.floor((totalCs * i) / FRAMES)) * 10);
}
