import { loadSharp } from '../../../../../platform/media/sharp.js';
import { upstreamFailed, type ProviderName } from './provider-failure.js';
import { isImageType, sniffMediaType } from './media-sniff.js';
import type { GeneratedMedia } from '../../../application/ports/index.js';

/**
 * An image made small enough to travel inline as a data URI: fitted to the size the model will
 * work at and re-encoded as JPEG, so a 10 MiB upload becomes a few hundred KB.
 */
export async function inlineImage(image: { bytes: Buffer }, width: number, height: number): Promise<{ bytes: Buffer; contentType: string }> {
  const sharp = await loadSharp();
  const bytes = await sharp(image.bytes).rotate().resize(width, height, { fit: 'cover' }).flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
  return { bytes, contentType: 'image/jpeg' };
}

/** Checks provider output really is an image and reads its size; anything else is a bad response. */
export async function describeImage(provider: ProviderName, bytes: Buffer): Promise<GeneratedMedia> {
  const sharp = await loadSharp();
  const type = sniffMediaType(bytes);
  if (!isImageType(type)) throw upstreamFailed(provider, 'bad_response', 'The provider sent an output that is not an image.');
  try {
    const meta = await sharp(bytes).metadata();
    return { bytes, contentType: type, width: meta.width, height: meta.pageHeight ?? meta.height };
  } catch {
    throw upstreamFailed(provider, 'bad_response', 'The provider sent an image that cannot be decoded.');
  }
}
