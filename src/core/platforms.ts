/**
 * Platform names accepted on the wire (contract §8): the platforms' own names, `x` for twitter,
 * and the interface's neutral aliases. A stored value keeps the client's spelling.
 */
export const PLATFORM_NAMES = [
  'instagram', 'tiktok', 'twitter', 'x', 'youtube', 'pinterest',
  'photo_share', 'short_video', 'microblog', 'video_share', 'pinboard',
] as const;
export type PlatformName = (typeof PLATFORM_NAMES)[number];

export type Platform = 'instagram' | 'tiktok' | 'twitter' | 'youtube' | 'pinterest';

const CANONICAL: Readonly<Record<PlatformName, Platform>> = {
  instagram: 'instagram',
  photo_share: 'instagram',
  tiktok: 'tiktok',
  short_video: 'tiktok',
  twitter: 'twitter',
  x: 'twitter',
  microblog: 'twitter',
  youtube: 'youtube',
  video_share: 'youtube',
  pinterest: 'pinterest',
  pinboard: 'pinterest',
};

export function isPlatformName(value: unknown): value is PlatformName {
  return typeof value === 'string' && (PLATFORM_NAMES as readonly string[]).includes(value);
}

/** The platform a (possibly aliased) name means. */
export function canonicalPlatform(name: PlatformName): Platform {
  return CANONICAL[name];
}

/** Every name that means the same platform as `name` (a filter on `x` finds items stored as `twitter`). */
export function platformSpellings(name: PlatformName): PlatformName[] {
  const platform = CANONICAL[name];
  return PLATFORM_NAMES.filter((n) => CANONICAL[n] === platform);
}
