export { loadSharp } from './sharp.js';
export { sniffImageType, type ImageType } from './image-type.js';
export { readUploadedImage, type UploadedImage } from './uploaded-image.js';
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
