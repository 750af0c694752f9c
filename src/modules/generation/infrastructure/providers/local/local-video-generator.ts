import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../../core/index.js';
import { isMediaToolError, runFfmpeg, withTempDir } from '../../../../../platform/media/ffmpeg.js';
import { loadSharp } from '../../../../../platform/media/sharp.js';
import {
  VideoGenerator,
  type AspectRatio,
  type GeneratedMedia,
  type MotionTransferRequest,
  type VideoRequest,
} from '../../../application/ports/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import { seedFrom } from '../shared/seeded.js';
import { videoSize } from '../shared/video-size.js';
import { rawCover } from './local-image-generator.js';
import { blendInto, paint, patternSpec } from './pattern.js';

type VideoResult = { video: GeneratedMedia; thumbnail?: GeneratedMedia };

/** 360p: small enough to render in seconds, and above the 360-pixel minimum TikTok asks of both sides. */
const SHORT_SIDE = 360;
const FPS = 15;

/**
 * Offline videos: an MP4 (H.264 yuv420p, a silent AAC track, faststart) of discs drifting across a
 * gradient, with the reference or character image blended in, and a PNG of its first frame.
 * Deterministic; the video lasts exactly the duration asked for. MP4 rather than an animated GIF,
 * so the platforms that take only real video (TikTok, YouTube) take these too.
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
  const { width, height } = videoSize(spec.aspectRatio, SHORT_SIDE);
  const base = spec.base ? await rawCover(spec.base, width, height) : undefined;
  const frameCount = Math.max(1, Math.round(spec.durationSeconds * FPS));
  const frame = (i: number) => paintFrame(spec, base, width, height, i / frameCount);
  try {
    const video = await encode(frames(frame, frameCount), { width, height }, frameCount / FPS, spec.signal);
    const thumbnail = await sharp(frame(0), { raw: { width, height, channels: 3 } }).png().toBuffer();
    return {
      video: { bytes: video, contentType: 'video/mp4', width, height, durationSeconds: spec.durationSeconds },
      thumbnail: { bytes: thumbnail, contentType: 'image/png', width, height },
    };
  } catch (err) {
    throw failure(err, spec.signal);
  }
}

/** The frame at `progress` (0..1) of the video: the discs drift out and back once over its length. */
function paintFrame(spec: RenderSpec, base: Buffer | undefined, width: number, height: number, progress: number): Buffer {
  const pixels = paint(patternSpec(spec.seed), width, height, Math.sin(Math.PI * progress));
  return base ? blendInto(pixels, base, spec.baseWeight) : pixels;
}

async function* frames(frame: (i: number) => Buffer, count: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < count; i++) yield frame(i);
}

async function encode(input: AsyncIterable<Buffer>, size: { width: number; height: number }, seconds: number, signal?: AbortSignal): Promise<Buffer> {
  return withTempDir(async (dir) => {
    const out = join(dir, 'video.mp4');
    await runFfmpeg(
      [
        ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${size.width}x${size.height}`, '-r', String(FPS), '-i', 'pipe:0'],
        // A silent sound track: some platforms and players treat a video without one as broken.
        ...['-f', 'lavfi', '-t', seconds.toFixed(3), '-i', 'anullsrc=channel_layout=mono:sample_rate=48000'],
        ...['-map', '0:v:0', '-map', '1:a:0', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', '-g', String(2 * FPS)],
        ...['-c:a', 'aac', '-b:a', '32k', '-movflags', '+faststart', '-y', out],
      ],
      { input, signal },
    );
    return readFile(out);
  });
}

function failure(err: unknown, signal?: AbortSignal): Error {
  if (err instanceof AppError) return err;
  if (signal?.aborted) return upstreamFailed('local', 'aborted', 'The video generation was cancelled.');
  if (isMediaToolError(err)) {
    return upstreamFailed('local', err.kind === 'unavailable' ? 'not_configured' : 'render_failed', `The local renderer could not make the video: ${err.message}`);
  }
  return err as Error;
}
