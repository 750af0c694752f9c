import { Injectable } from '@nestjs/common';
import { AppError } from '../../../core/index.js';
import { Storage } from '../../../platform/storage/index.js';
import type { StoredMedia } from '../domain/content-item.js';
import type { GeneratedMedia } from '../../generation/index.js';

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/quicktime': 'mov',
};

function extensionOf(media: GeneratedMedia): string {
  const ext = EXTENSIONS[media.contentType.split(';')[0].trim().toLowerCase()];
  if (!ext) throw new AppError('upstream_failed', `The provider returned a file of an unsupported type (${media.contentType.slice(0, 60)}).`);
  return ext;
}

/**
 * Copies provider output into our storage. Keys are derived from the item, the job and the
 * position only, so a re-delivered job overwrites its own files instead of adding new ones.
 */
@Injectable()
export class MediaStore {
  constructor(private readonly storage: Storage) {}

  /** Stores every image, or none: when one cannot be stored (a full disk), those already stored are removed. */
  async saveImages(itemId: string, jobId: string, images: GeneratedMedia[], size: { width: number; height: number }): Promise<StoredMedia[]> {
    const saved: StoredMedia[] = [];
    try {
      for (const [index, image] of images.entries()) {
        const key = `content/${itemId}/${jobId}-${index}.${extensionOf(image)}`;
        const stored = await this.storage.put(key, image.bytes, image.contentType);
        saved.push({
          index, kind: 'image', key, url: stored.url, contentType: image.contentType,
          width: image.width ?? size.width, height: image.height ?? size.height, reviewStatus: 'pending',
        });
      }
    } catch (err) {
      await this.discard(saved.map((m) => m.key));
      throw err;
    }
    return saved;
  }

  async saveVideo(
    itemId: string,
    jobId: string,
    out: { video: GeneratedMedia; thumbnail?: GeneratedMedia },
    spec: { width: number; height: number; durationSeconds: number },
  ): Promise<StoredMedia> {
    const key = `content/${itemId}/${jobId}-video.${extensionOf(out.video)}`;
    const stored = await this.storage.put(key, out.video.bytes, out.video.contentType);
    const medium: StoredMedia = {
      index: 0, kind: 'video', key, url: stored.url, contentType: out.video.contentType,
      width: out.video.width ?? spec.width, height: out.video.height ?? spec.height, reviewStatus: 'pending',
      durationSeconds: out.video.durationSeconds ?? spec.durationSeconds,
    };
    if (out.thumbnail) {
      const thumbKey = `content/${itemId}/${jobId}-thumb.${extensionOf(out.thumbnail)}`;
      try {
        const thumb = await this.storage.put(thumbKey, out.thumbnail.bytes, out.thumbnail.contentType);
        medium.thumbnailKey = thumbKey;
        medium.thumbnailUrl = thumb.url;
      } catch (err) {
        // The video without its thumbnail is not kept either: the job fails whole.
        await this.discard([key]);
        throw err;
      }
    }
    return medium;
  }

  /** Best effort: the failure that led here is what the job reports. */
  private async discard(keys: string[]): Promise<void> {
    for (const key of keys) await this.storage.delete(key).catch(() => undefined);
  }

  /** Removes files of an earlier generation that the new media list no longer names. */
  async removeReplaced(before: StoredMedia[], after: StoredMedia[]): Promise<void> {
    const kept = new Set(after.flatMap((m) => [m.key, m.thumbnailKey]));
    const gone = before.flatMap((m) => [m.key, m.thumbnailKey]).filter((k): k is string => k !== undefined && !kept.has(k));
    for (const key of gone) await this.storage.delete(key);
  }
}
