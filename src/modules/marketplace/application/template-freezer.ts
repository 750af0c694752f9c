import { Injectable, Logger } from '@nestjs/common';
import { newId } from '../../../core/index.js';
import { Storage } from '../../../platform/storage/index.js';
import type { CharacterTemplate, TemplateImage } from '../../characters/index.js';

/** A template whose image bytes the marketplace owns, and the keys it wrote for it. */
export interface FrozenTemplate {
  template: CharacterTemplate;
  keys: string[];
}

/** Where a listing keeps the bytes of its template's images: one folder per listing. */
export function templateImageKey(listingId: string, ext: string): string {
  return `marketplace/${listingId}/${newId('ref')}.${ext}`;
}

/** Every storage key a frozen template holds. */
export function templateKeys(template: CharacterTemplate | null | undefined): string[] {
  return (template?.images ?? []).map((i) => i.storageKey);
}

/**
 * Freezes a character snapshot into a listing: the image bytes are copied to keys the listing
 * owns, so neither a later edit nor the deletion of the seller's character changes what buyers
 * receive. Uploads whose bytes are already gone are left out, URL and all.
 */
@Injectable()
export class TemplateFreezer {
  private readonly logger = new Logger('TemplateFreezer');

  constructor(private readonly storage: Storage) {}

  async freeze(listingId: string, snapshot: CharacterTemplate): Promise<FrozenTemplate> {
    const keys: string[] = [];
    try {
      const copies: Array<{ from: string; image: TemplateImage }> = [];
      for (const image of snapshot.images) {
        const key = templateImageKey(listingId, image.storageKey.slice(image.storageKey.lastIndexOf('.') + 1));
        const stored = await this.storage.copy(image.storageKey, key);
        if (!stored) continue;
        keys.push(key);
        copies.push({ from: image.url, image: { ...image, storageKey: key, url: stored.url } });
      }
      const urlMap = new Map(copies.map((c) => [c.from, c.image.url]));
      const uploaded = new Set(snapshot.images.map((i) => i.url));
      const referenceImages = snapshot.referenceImages.flatMap((u) => (urlMap.has(u) ? [urlMap.get(u)!] : uploaded.has(u) ? [] : [u]));
      return { template: { ...snapshot, referenceImages, images: copies.map((c) => c.image) }, keys };
    } catch (err) {
      await this.discard(keys);
      throw err;
    }
  }

  /** Removes bytes no listing refers to any more; a failure only leaves an orphan behind. */
  async discard(keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.storage.delete(key).catch((err: unknown) => this.logger.warn({ msg: 'could not remove template image', key, err: String(err) }));
    }
  }
}
