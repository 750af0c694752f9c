/**
 * Storage keys are the only thing a client can name in a media URL, so their shape is strict:
 * 2 to 5 segments of letters, digits, `_` and `-`, the last with one known extension. No dots
 * elsewhere, so `..` and hidden files cannot be expressed at all.
 */
export const MEDIA_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  // Data exports (docs/accounts-data.md).
  zip: 'application/zip',
};

const SEGMENT = '[A-Za-z0-9][A-Za-z0-9_-]{0,79}';
const KEY_SHAPE = new RegExp(`^(?:${SEGMENT}/){1,4}${SEGMENT}\\.(${Object.keys(MEDIA_TYPES).join('|')})$`);
const MAX_KEY_LENGTH = 300;

export function isStorageKey(key: unknown): key is string {
  return typeof key === 'string' && key.length <= MAX_KEY_LENGTH && KEY_SHAPE.test(key);
}

/** Throws on a malformed key: callers build keys from ids, so a bad one is a bug, not user input. */
export function assertStorageKey(key: string): void {
  if (!isStorageKey(key)) throw new Error(`invalid storage key: ${JSON.stringify(String(key).slice(0, 100))}`);
}

/** The content type a key is served with, decided by its extension (never by stored metadata). */
export function contentTypeOfKey(key: string): string {
  const ext = key.slice(key.lastIndexOf('.') + 1);
  return MEDIA_TYPES[ext] ?? 'application/octet-stream';
}

/** The path of the media route relative to the public URL. */
export const MEDIA_PATH = '/api/v1/media';
