export { loadSharp } from './sharp.js';
export { sniffImageType, type ImageType } from './image-type.js';
export { readUploadedImage, type UploadedImage } from './uploaded-image.js';
export { sniffAudioType, readWav, wavDurationSeconds, mp3DurationSeconds, mpegFrame, pcm16Wav, type AudioType, type WavInfo, type MpegFrame } from './audio-type.js';
export {
  ffmpegPath,
  ffprobePath,
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
