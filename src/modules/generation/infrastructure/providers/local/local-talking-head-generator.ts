import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../../../../core/index.js';
import { isMediaToolError, runFfmpeg, untrustedAudioInput, withTempDir } from '../../../../../platform/media/ffmpeg.js';
import { sniffAudioType } from '../../../../../platform/media/audio-type.js';
import { loadSharp } from '../../../../../platform/media/sharp.js';
import {
  TalkingHeadGenerator,
  type GeneratedMedia,
  type TalkingHeadRequest,
  type TalkingHeadVideo,
} from '../../../application/ports/index.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import { videoSize } from '../shared/video-size.js';
import { drawMouth, mouthGeometry, mouthLevels, type MouthGeometry } from './talking-mouth.js';

export type X264Preset = 'ultrafast' | 'superfast' | 'veryfast' | 'faster' | 'fast' | 'medium';

export interface LocalTalkingHeadOptions {
  /** The video's short side in pixels; the long side follows the aspect ratio (720: 720×1280 for 9:16). */
  shortSide?: number;
  fps?: number;
  /** Budget of one render, from decoding the speech to the finished MP4. */
  timeoutMs?: number;
  /** x264's speed against file size. */
  preset?: X264Preset;
}

const SAMPLE_RATE = 48_000;
/** Decoded speech above this (about 11 minutes of 48 kHz mono) is refused rather than held in memory. */
const MAX_PCM_BYTES = 64 * 1024 * 1024;
const DEFAULTS = { shortSide: 720, fps: 25, timeoutMs: 10 * 60_000, preset: 'veryfast' } as const;

type Size = { width: number; height: number };

/**
 * The offline talking head: the character's image, cover-fitted, with a mouth that opens with the
 * speech's loudness, frame by frame, encoded by the bundled ffmpeg as an MP4 (H.264 yuv420p + AAC,
 * faststart). Raw RGB frames are piped to ffmpeg's stdin; the audio is padded with silence to the
 * exact length of the frames, so the two tracks end together.
 */
export class LocalTalkingHeadGenerator extends TalkingHeadGenerator {
  private readonly opts: Required<LocalTalkingHeadOptions>;

  constructor(opts: LocalTalkingHeadOptions = {}) {
    super();
    // Field by field: an option passed as undefined (unset in configuration) keeps its default.
    this.opts = {
      shortSide: opts.shortSide ?? DEFAULTS.shortSide,
      fps: opts.fps ?? DEFAULTS.fps,
      timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
      preset: opts.preset ?? DEFAULTS.preset,
    };
    if (!Number.isInteger(SAMPLE_RATE / this.opts.fps)) throw new Error(`fps ${this.opts.fps} does not divide ${SAMPLE_RATE} Hz audio into whole frames.`);
  }

  async render(req: TalkingHeadRequest, signal?: AbortSignal, onProgress?: (percent: number) => void): Promise<TalkingHeadVideo> {
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const scope = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      return await withTempDir((dir) => this.renderIn(dir, req, scope, progressReporter(onProgress)));
    } catch (err) {
      throw this.failure(err, signal, deadline);
    }
  }

  private async renderIn(dir: string, req: TalkingHeadRequest, signal: AbortSignal, report: (percent: number) => void): Promise<TalkingHeadVideo> {
    const size = videoSize(req.aspectRatio, this.opts.shortSide);
    const samplesPerFrame = SAMPLE_RATE / this.opts.fps;
    const pcm = await decodeSpeech(dir, req.speech.bytes, signal);
    const frameCount = Math.max(1, Math.ceil(pcm.length / samplesPerFrame));
    const levels = mouthLevels(pcm, samplesPerFrame, frameCount);
    const face = await coverImage(req.image.bytes, size);
    const mouth = mouthGeometry(size.width, size.height);
    report(5);
    const audioPath = join(dir, 'speech.pcm');
    await writeFile(audioPath, padWithSilence(pcm, frameCount * samplesPerFrame));
    const videoPath = join(dir, 'talk.mp4');
    const frames = renderFrames(face, size.width, mouth, levels, (written) => report(5 + (90 * written) / frameCount));
    await runFfmpeg(this.encodeArgs(size, audioPath, videoPath), { input: frames, signal });
    const bytes = await readFile(videoPath);
    const thumbnail = await thumbnailOf(face, size, mouth, levels);
    report(100);
    const durationSeconds = frameCount / this.opts.fps;
    return { video: { bytes, contentType: 'video/mp4', ...size, durationSeconds }, thumbnail, durationSeconds };
  }

  private encodeArgs(size: Size, audioPath: string, out: string): string[] {
    const fps = String(this.opts.fps);
    return [
      ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${size.width}x${size.height}`, '-r', fps, '-i', 'pipe:0'],
      ...['-f', 's16le', '-ar', String(SAMPLE_RATE), '-ac', '1', '-i', audioPath],
      ...['-map', '0:v:0', '-map', '1:a:0'],
      // HD is BT.709; tagging it keeps players from shifting the colours.
      ...['-vf', 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709'],
      // A keyframe every 2 s: platforms that re-encode or seek expect short GOPs.
      ...['-c:v', 'libx264', '-preset', this.opts.preset, '-crf', '23', '-g', String(2 * this.opts.fps), '-r', fps],
      ...['-c:a', 'aac', '-b:a', '96k', '-movflags', '+faststart', '-y', out],
    ];
  }

  private failure(err: unknown, signal: AbortSignal | undefined, deadline: AbortSignal): Error {
    if (err instanceof AppError) return err;
    if (signal?.aborted) return upstreamFailed('local', 'aborted', 'The talking-head render was cancelled.');
    if (deadline.aborted) return upstreamFailed('local', 'timeout', `The local renderer did not finish the talking head within ${Math.round(this.opts.timeoutMs / 1000)} s.`);
    if (isMediaToolError(err)) {
      const reason = err.kind === 'unavailable' ? 'not_configured' : 'render_failed';
      return upstreamFailed('local', reason, `The local renderer could not make the talking head: ${err.message}`);
    }
    return err as Error;
  }
}

/** The speech as 48 kHz mono 16-bit samples, in any audio format we sniff (WAV, MP3, ...). */
async function decodeSpeech(dir: string, bytes: Buffer, signal: AbortSignal): Promise<Int16Array> {
  const type = sniffAudioType(bytes);
  if (!type) throw upstreamFailed('local', 'bad_input', 'The speech audio is not WAV, MP3, Ogg, FLAC, M4A or WebM.');
  const path = join(dir, 'speech.in');
  await writeFile(path, bytes);
  let pcm: Buffer;
  try {
    ({ stdout: pcm } = await runFfmpeg([...untrustedAudioInput(type, path), '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', 'pipe:1'], { signal, maxStdoutBytes: MAX_PCM_BYTES }));
  } catch (err) {
    if (isMediaToolError(err) && err.kind === 'failed') throw upstreamFailed('local', 'bad_input', 'The speech audio cannot be decoded.');
    if (isMediaToolError(err) && err.kind === 'too_large') throw upstreamFailed('local', 'bad_input', 'The speech is too long for the local renderer.');
    throw err;
  }
  if (pcm.length < 2) throw upstreamFailed('local', 'bad_input', 'The speech audio is empty.');
  // Copied into its own buffer: a Buffer's offset in its pool need not be 2-byte aligned.
  const samples = new Int16Array(pcm.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2);
  return samples;
}

function padWithSilence(pcm: Int16Array, samples: number): Buffer {
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i], i * 2);
  return out;
}

/** The image scaled to cover the frame (cropped where the subject seems to be), as raw RGB. */
async function coverImage(bytes: Buffer, size: Size): Promise<Buffer> {
  const sharp = await loadSharp();
  try {
    return await sharp(bytes)
      .rotate()
      .resize(size.width, size.height, { fit: 'cover', position: sharp.strategy.attention })
      .flatten({ background: '#ffffff' })
      .removeAlpha()
      .raw()
      .toBuffer();
  } catch {
    throw upstreamFailed('local', 'bad_input', 'The reference image cannot be decoded.');
  }
}

/** Frame i: the face with the mouth at level i. Each frame is its own buffer: stdin may still hold the last. */
async function* renderFrames(face: Buffer, width: number, mouth: MouthGeometry, levels: Float32Array, onFrame: (written: number) => void): AsyncGenerator<Buffer> {
  for (let i = 0; i < levels.length; i++) {
    const frame = Buffer.from(face);
    drawMouth(frame, width, mouth, levels[i]);
    yield frame;
    onFrame(i + 1);
  }
}

/** A JPEG of the first frame where the mouth is open (a face mid-word), else of the first frame. */
async function thumbnailOf(face: Buffer, size: Size, mouth: MouthGeometry, levels: Float32Array): Promise<GeneratedMedia> {
  const sharp = await loadSharp();
  const loud = levels.findIndex((level) => level >= 0.5);
  const frame = Buffer.from(face);
  drawMouth(frame, size.width, mouth, levels[Math.max(0, loud)]);
  const bytes = await sharp(frame, { raw: { ...size, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
  return { bytes, contentType: 'image/jpeg', ...size };
}

/** Whole percents, each reported once and never going back. */
function progressReporter(onProgress?: (percent: number) => void): (percent: number) => void {
  let last = -1;
  return (percent) => {
    const whole = Math.min(100, Math.floor(percent));
    if (!onProgress || whole <= last) return;
    last = whole;
    onProgress(whole);
  };
}
