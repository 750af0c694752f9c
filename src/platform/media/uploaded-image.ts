import { AppError } from '../../core/index.js';
import { sniffImageType, type ImageType } from './image-type.js';
import { loadSharp } from './sharp.js';

/** Decompression-bomb guard: an image may declare at most this many pixels. */
const MAX_INPUT_PIXELS = 50_000_000;

export interface UploadedImage extends ImageType {
  width: number;
  height: number;
}

/**
 * An uploaded image accepted by its bytes: at most `maxBytes` (413), JPEG, PNG or WebP by its
 * leading bytes and a header that decodes as that format (415). Dimensions are as displayed (EXIF
 * orientation applied). `what` names it in messages ("A reference image").
 */
export async function readUploadedImage(bytes: Buffer, maxBytes: number, what: string): Promise<UploadedImage> {
  if (bytes.length > maxBytes) throw new AppError('payload_too_large', `${what} can be at most ${Math.round(maxBytes / 1024 / 1024)} MiB.`);
  const kind = sniffImageType(bytes);
  if (!kind) throw new AppError('unsupported_media_type', `${what} must be a JPEG, PNG or WebP image.`);
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const expected = kind.ext === 'jpg' ? 'jpeg' : kind.ext;
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (meta.format === expected && width > 0 && height > 0) return { ...kind, width, height };
  } catch {
    // answered below
  }
  throw new AppError('unsupported_media_type', 'The image could not be read; send a valid JPEG, PNG or WebP file.');
}
