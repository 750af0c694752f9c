import type { ContentType } from './content-item.js';

export interface Size {
  width: number;
  height: number;
}

/** Vertical formats are drawn 9:16, feed posts square. */
export function imageSize(contentType: ContentType): Size {
  return contentType === 'story' || contentType === 'reel' || contentType === 'short' || contentType === 'video'
    ? { width: 768, height: 1344 }
    : { width: 1024, height: 1024 };
}

const VIDEO_SIZES: Readonly<Record<string, Size>> = {
  '9:16': { width: 720, height: 1280 },
  '1:1': { width: 1080, height: 1080 },
  '16:9': { width: 1280, height: 720 },
};

export function videoSize(aspectRatio: string): Size {
  return VIDEO_SIZES[aspectRatio] ?? VIDEO_SIZES['9:16'];
}
