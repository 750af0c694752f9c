import { loadSharp } from '../../../../../platform/media/sharp.js';
import {
  VideoGenerator,
  type AspectRatio,
  type CharacterBrief,
  type GeneratedMedia,
  type MotionTransferRequest,
  type VideoRequest,
} from '../../../application/ports/index.js';
import { frameSize } from '../shared/aspect.js';
import { toDataUri } from '../shared/data-uri.js';
import { inlineImage } from '../shared/image-input.js';
import { mp4DurationSeconds, sniffMediaType } from '../shared/media-sniff.js';
import { upstreamFailed } from '../shared/provider-failure.js';
import type { ReplicateClient } from './replicate-client.js';

type VideoResult = { video: GeneratedMedia; thumbnail?: GeneratedMedia };

/** Scene videos and motion transfer on Replicate models (one model each, from configuration). */
export class ReplicateVideoGenerator extends VideoGenerator {
  constructor(
    private readonly client: ReplicateClient,
    private readonly videoModel: string,
    private readonly motionModel: string,
  ) {
    super();
  }

  async generate(req: VideoRequest, signal?: AbortSignal): Promise<VideoResult> {
    const frame = frameSize(req.aspectRatio, 1280);
    const firstFrame = req.referenceImage ? toDataUri(await inlineImage(req.referenceImage, frame.width, frame.height)) : undefined;
    const input = {
      prompt: scenePrompt(req.character, req.sceneDescription),
      duration: req.durationSeconds,
      aspect_ratio: req.aspectRatio,
      ...(firstFrame ? { first_frame_image: firstFrame } : {}),
    };
    return this.runToVideo(this.videoModel, input, req, signal);
  }

  async motionTransfer(req: MotionTransferRequest, signal?: AbortSignal): Promise<VideoResult> {
    const frame = frameSize(req.aspectRatio, 1280);
    const input = {
      prompt: scenePrompt(req.character, 'follows the motion of the reference video'),
      image: toDataUri(await inlineImage(req.characterImage, frame.width, frame.height)),
      video: await this.client.fileInput(req.referenceVideo, signal),
      duration: req.durationSeconds,
      aspect_ratio: req.aspectRatio,
    };
    return this.runToVideo(this.motionModel, input, { ...req, referenceImage: req.characterImage }, signal);
  }

  private async runToVideo(
    model: string,
    input: Record<string, unknown>,
    req: { durationSeconds: number; aspectRatio: AspectRatio; referenceImage?: { bytes: Buffer } },
    signal?: AbortSignal,
  ): Promise<VideoResult> {
    const prediction = await this.client.run(model, input, signal);
    const [bytes] = await this.client.downloadOutputs(prediction, signal);
    const type = sniffMediaType(bytes);
    if (type !== 'video/mp4' && type !== 'video/quicktime' && type !== 'video/webm' && type !== 'image/gif' && type !== 'image/webp') {
      throw upstreamFailed('replicate', 'bad_response', 'Replicate sent an output that is not a video.', { prediction_id: prediction.id });
    }
    const durationSeconds = (type === 'video/mp4' || type === 'video/quicktime' ? mp4DurationSeconds(bytes) : undefined) ?? req.durationSeconds;
    const thumbnail = await thumbnailFor(bytes, type, req);
    return { video: { bytes, contentType: type, durationSeconds, width: thumbnail?.width, height: thumbnail?.height }, thumbnail };
  }
}

function scenePrompt(character: CharacterBrief, scene: string): string {
  const who = [character.name, character.ageRange, character.occupation, character.aesthetic && `${character.aesthetic} style`].filter(Boolean).join(', ');
  return `${scene}. Featuring ${who}.`;
}

/**
 * A PNG still for the video: its first frame when we can decode it (GIF, WebP), else the
 * reference image at the video's aspect ratio; none when there is neither.
 */
async function thumbnailFor(bytes: Buffer, type: string, req: { aspectRatio: AspectRatio; referenceImage?: { bytes: Buffer } }): Promise<GeneratedMedia | undefined> {
  const sharp = await loadSharp();
  const source = type.startsWith('image/') ? bytes : req.referenceImage?.bytes;
  if (!source) return undefined;
  const size = frameSize(req.aspectRatio, 640);
  try {
    const png = await sharp(source, { pages: 1 }).resize(size.width, size.height, { fit: 'cover' }).png().toBuffer();
    return { bytes: png, contentType: 'image/png', ...size };
  } catch {
    if (type.startsWith('image/')) throw upstreamFailed('replicate', 'bad_response', 'Replicate sent an animation that cannot be decoded.');
    return undefined;
  }
}
