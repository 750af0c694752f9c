import type { Platform } from '../../../../core/index.js';
import type { PlatformClient, PlatformClientOptions } from '../../application/ports/platform-client.js';
import { InstagramClient } from './instagram-client.js';
import { PinterestClient } from './pinterest-client.js';
import { TikTokClient } from './tiktok-client.js';
import { XClient } from './x-client.js';
import { YouTubeClient } from './youtube-client.js';

const LIVE: Readonly<Record<Platform, new (options: PlatformClientOptions) => PlatformClient>> = {
  instagram: InstagramClient,
  tiktok: TikTokClient,
  twitter: XClient,
  youtube: YouTubeClient,
  pinterest: PinterestClient,
};

/** The adapter that speaks the platform's real API. */
export function liveClient(platform: Platform, options: PlatformClientOptions): PlatformClient {
  return new LIVE[platform](options);
}
