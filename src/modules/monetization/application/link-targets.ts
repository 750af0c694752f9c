import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { LinksRepository, type LinkTarget } from '../infrastructure/links.repository.js';

/** Entries kept at most; past it the oldest go first (Map keeps insertion order). */
const MAX_ENTRIES = 20_000;

/**
 * The link a shortcode names, for the public redirect, cached in this process for
 * MONETIZATION_LINK_CACHE_MS (unknown shortcodes too, so a flood of misses costs no more reads).
 * A change made through this process drops its entries at once; other processes follow within
 * the cache's life.
 */
@Injectable()
export class LinkTargets {
  private readonly cache = new Map<string, { target: LinkTarget | null; until: number }>();
  private readonly ttlMs: number;

  constructor(
    private readonly links: LinksRepository,
    config: AppConfig,
  ) {
    this.ttlMs = config.monetization.linkCacheMs;
  }

  async of(shortcode: string): Promise<LinkTarget | null> {
    const now = Date.now();
    const hit = this.cache.get(shortcode);
    if (hit && hit.until > now) return hit.target;
    const target = await this.links.target(shortcode);
    if (this.ttlMs > 0) {
      this.cache.delete(shortcode);
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(shortcode, { target, until: now + this.ttlMs });
    }
    return target;
  }

  /** Forgets what this process knows of these shortcodes (a link made, changed or deleted here). */
  drop(...shortcodes: string[]): void {
    for (const s of shortcodes) this.cache.delete(s);
  }
}
