import type { GeneratedMedia } from './media.js';
import type { AspectRatio } from './video-generator.js';

export interface TalkingHeadRequest {
  jobId: string;
  /** The character's primary reference image (our storage bytes). */
  image: { bytes: Buffer; contentType: string };
  /** The speech the face speaks, already made by the speech generator. */
  speech: { bytes: Buffer; contentType: string; durationSeconds: number };
  aspectRatio: AspectRatio;
}

export interface TalkingHeadVideo {
  /** An MP4: H.264 video and AAC audio of the speech. */
  video: GeneratedMedia;
  thumbnail?: GeneratedMedia;
  durationSeconds: number;
}

/**
 * Makes a lip-synced video of a face speaking a given speech. Adapters: D-ID's talks API, and an
 * offline renderer (the bundled ffmpeg) whose mouth opens with the speech's loudness, frame-accurate
 * to the audio. `onProgress` reports 0-100 where the adapter can tell.
 */
export abstract class TalkingHeadGenerator {
  abstract render(req: TalkingHeadRequest, signal?: AbortSignal, onProgress?: (percent: number) => void): Promise<TalkingHeadVideo>;
}
