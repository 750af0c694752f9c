import type { FakePlatform } from './fake-platform.js';
import { INSTAGRAM_PATHS, startInstagramFake, type InstagramFake } from './instagram.js';
import { PINTEREST_PATHS, startPinterestFake, type PinterestFake } from './pinterest.js';
import { startTikTokFake, TIKTOK_PATHS, type TikTokFake } from './tiktok.js';
import { startXFake, X_PATHS, type XFake } from './x.js';
import { startYouTubeFake, YOUTUBE_PATHS, type YouTubeFake } from './youtube.js';

export type { FakePlatform, FakePlatformMode, RecordedPost } from './fake-platform.js';

/** All five platform fakes, keyed by the service's platform names. */
export interface PlatformFakes {
  instagram: InstagramFake;
  tiktok: TikTokFake;
  twitter: XFake;
  youtube: YouTubeFake;
  pinterest: PinterestFake;
}

type Paths = { apiUrl: string; authorizeUrl: string; tokenUrl: string; uploadUrl: string };

const PATHS: Record<keyof PlatformFakes, Paths> = {
  instagram: INSTAGRAM_PATHS,
  tiktok: TIKTOK_PATHS,
  twitter: X_PATHS,
  youtube: YOUTUBE_PATHS,
  pinterest: PINTEREST_PATHS,
};

export async function startPlatformFakes(): Promise<PlatformFakes> {
  const [instagram, tiktok, twitter, youtube, pinterest] = await Promise.all([
    startInstagramFake(), startTikTokFake(), startXFake(), startYouTubeFake(), startPinterestFake(),
  ]);
  return { instagram, tiktok, twitter, youtube, pinterest };
}

export function eachFake(fakes: PlatformFakes): Array<[keyof PlatformFakes, FakePlatform]> {
  return Object.entries(fakes) as Array<[keyof PlatformFakes, FakePlatform]>;
}

/**
 * The service's environment for live mode against the fakes: client credentials and every
 * address of each platform (only the listed platforms; the others stay in sandbox mode).
 */
export function platformEnv(fakes: Partial<PlatformFakes>): Record<string, string> {
  const env: Record<string, string> = { PUBLISH_POLL_INTERVAL_MS: '20', PUBLISH_TIMEOUT_MS: '5000' };
  for (const [platform, fake] of Object.entries(fakes) as Array<[keyof PlatformFakes, FakePlatform]>) {
    const prefix = platform.toUpperCase();
    const paths = PATHS[platform];
    env[`${prefix}_CLIENT_ID`] = fake.options.clientId;
    env[`${prefix}_CLIENT_SECRET`] = fake.options.clientSecret;
    env[`${prefix}_API_URL`] = fake.url + paths.apiUrl;
    env[`${prefix}_AUTHORIZE_URL`] = fake.url + paths.authorizeUrl;
    env[`${prefix}_TOKEN_URL`] = fake.url + paths.tokenUrl;
    env[`${prefix}_UPLOAD_URL`] = fake.url + paths.uploadUrl;
  }
  return env;
}

export async function closePlatformFakes(fakes: Partial<PlatformFakes> | undefined): Promise<void> {
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
}
export type { InstagramComment, InstagramMessage } from './instagram.js';
export type { XMention } from './x.js';
export type { FakeComment } from './youtube.js';
export type { RecordedReply } from './fake-platform.js';
export * from './webhooks.js';
