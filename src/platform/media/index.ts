export { loadSharp } from './sharp.js';
export { sniffImageType, type ImageType } from './image-type.js';
export { readUploadedImage, type UploadedImage } from './uploaded-image.js';
export { sniffAudioType, readWav, wavDurationSeconds, mp3DurationSeconds, mpegFrame, pcm16Wav, type AudioType, type WavInfo, type MpegFrame } from './audio-type.js';
export {
  ffmpegPath,
  ffprobePath,
  configureMediaTools,
  untrustedInput,
  untrustedAudioInput,
  untrustedVideoInput,
  type UntrustedVideoType,
  runFfmpeg,
  probeMedia,
  withTempDir,
  MediaToolError,
  isMediaToolError,
  type MediaToolErrorKind,
  type RunOptions,
  type RunResult,
  type MediaStream,
  type MediaProbe,
} from './ffmpeg.js';
export { selectMediaTool, parseToolVersion, MIN_SYSTEM_MAJOR, type MediaToolChoice, type MediaToolSelection, type MediaToolCandidates, type VersionProbe } from './media-tools.js';
export { MediaModule } from './media.module.js';
