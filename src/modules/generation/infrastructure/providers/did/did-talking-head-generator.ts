import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { isMediaToolError, runFfmpeg, untrustedVideoInput, withTempDir } from '../../../../../platform/media/ffmpeg.js';
import { loadSharp } from '../../../../../platform/media/sharp.js';
import {
  TalkingHeadGenerator,
  type GeneratedMedia,
  type TalkingHeadRequest,
  type TalkingHeadVideo,
} from '../../../application/ports/index.js';
import { mp4DurationSeconds, sniffMediaType } from '../shared/media-sniff.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import { videoSize } from '../shared/video-size.js';
import type { DidClient, Talk, UploadFile } from './did-client.js';

export interface DidTalkingHeadOptions {
  /** The short side of the picture sent to D-ID, already cropped to the aspect ratio (D-ID keeps its shape). */
  shortSide?: number;
}

const AUDIO_EXTENSIONS: Readonly<Record<string, string>> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
};

/**
 * Talking heads made by D-ID: the reference image cropped to the aspect ratio and the speech are
 * uploaded, a talk is made from them, and its MP4 is checked and kept, with its first frame as the
 * thumbnail (the cropped image when the bundled ffmpeg cannot run).
 */
export class DidTalkingHeadGenerator extends TalkingHeadGenerator {
  private readonly shortSide: number;

  constructor(
    private readonly client: DidClient,
    opts: DidTalkingHeadOptions = {},
  ) {
    super();
    this.shortSide = opts.shortSide ?? 720;
  }

  async render(req: TalkingHeadRequest, signal?: AbortSignal, onProgress?: (percent: number) => void): Promise<TalkingHeadVideo> {
    const image = await sourceImage(req, this.shortSide);
    onProgress?.(5);
    const { talk, video } = await this.client.talk(image, speechFile(req.speech), signal, (t, polls) => onProgress?.(talkPercent(t, polls)));
    if (sniffMediaType(video) !== 'video/mp4') throw upstreamFailed('d-id', 'bad_response', 'D-ID sent a result that is not an MP4.', { talk_id: talk.id });
    const durationSeconds = mp4DurationSeconds(video) ?? req.speech.durationSeconds;
    const frame = await firstFrame(video, talk, signal);
    const thumbnail: GeneratedMedia = frame ?? { bytes: image.bytes, contentType: image.contentType, width: image.width, height: image.height };
    onProgress?.(100);
    return { video: { bytes: video, contentType: 'video/mp4', durationSeconds, width: frame?.width, height: frame?.height }, thumbnail, durationSeconds };
  }
}

/** JPEG, cover-cropped to the video's shape: D-ID takes JPEG and PNG only, and animates what it gets. */
async function sourceImage(req: TalkingHeadRequest, shortSide: number): Promise<UploadFile & { width: number; height: number }> {
  const sharp = await loadSharp();
  const size = videoSize(req.aspectRatio, shortSide);
  try {
    const bytes = await sharp(req.image.bytes).rotate().resize(size.width, size.height, { fit: 'cover', position: sharp.strategy.attention }).flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
    return { bytes, contentType: 'image/jpeg', filename: 'face.jpg', ...size };
  } catch {
    throw upstreamFailed('d-id', 'bad_input', 'The reference image cannot be decoded.');
  }
}

function speechFile(speech: TalkingHeadRequest['speech']): UploadFile {
  const type = speech.contentType.split(';')[0].trim().toLowerCase();
  return { bytes: speech.bytes, contentType: type, filename: `speech.${AUDIO_EXTENSIONS[type] ?? 'audio'}` };
}

/**
 * Progress from D-ID's status (the picture is ready at 5): created 15, started from 20 creeping
 * towards 85 with each poll (D-ID gives no percentage), ended 90; the checked video is 100.
 */
export function talkPercent(talk: Talk, pollsInStatus: number): number {
  if (talk.status === 'created') return 15;
  if (talk.status === 'started') return Math.round(85 - 65 * 0.85 ** pollsInStatus);
  return 90;
}

/**
 * The first frame of the video as a JPEG (which also proves it decodes); undefined when ffmpeg cannot
 * run here. The bytes come from outside: render sniffed them as MP4 and they are opened with that
 * demuxer and the file and pipe protocols only, never by ffmpeg's own guess.
 */
async function firstFrame(video: Buffer, talk: Talk, signal?: AbortSignal): Promise<GeneratedMedia | undefined> {
  try {
    const jpeg = await withTempDir(async (dir) => {
      const path = join(dir, 'talk.mp4');
      await writeFile(path, video);
      const args = [...untrustedVideoInput('video/mp4', path), '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', '-q:v', '3', 'pipe:1'];
      return (await runFfmpeg(args, { signal, timeoutMs: 30_000 })).stdout;
    });
    const meta = await (await loadSharp())(jpeg).metadata();
    return { bytes: jpeg, contentType: 'image/jpeg', width: meta.width, height: meta.height };
  } catch (err) {
    if (isMediaToolError(err) && err.kind === 'unavailable') return undefined;
    if (!isMediaToolError(err)) throw err;
    if (err.kind === 'aborted') throw upstreamFailed('d-id', 'aborted', 'The D-ID talk was cancelled.', { talk_id: talk.id });
    throw upstreamFailed('d-id', 'bad_response', `D-ID sent an MP4 we cannot decode: ${err.message}`, { talk_id: talk.id });
  }
}
