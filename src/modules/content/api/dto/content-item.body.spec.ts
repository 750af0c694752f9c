import { describe, expect, it } from '@jest/globals';
import type { JobRecord } from '../../../../platform/queue/index.js';
import type { MediaUrls } from '../../../../platform/storage/index.js';
import { newContentItem, type StoredMedia } from '../../domain/content-item.js';
import { toContentItemBody, toOrderedBody, toVideoStatusBody } from './content-item.body.js';

const now = new Date('2030-01-01T00:00:00Z');
const base = newContentItem(
  { id: 'cnt_1', workspaceId: 'ws_1', characterId: 'char_1', platform: 'x', contentType: 'single', kind: 'image', imagePrompt: 'p' },
  now,
);
const image: StoredMedia = { index: 0, kind: 'image', key: 'content/cnt_1/job_1-0.png', url: 'http://h/m.png', contentType: 'image/png', width: 2, height: 3, reviewStatus: 'pending' };
const video: StoredMedia = { ...image, kind: 'video', key: 'content/cnt_1/job_1-video.mp4', url: 'http://h/v.mp4', thumbnailKey: 'k', thumbnailUrl: 'http://h/t.png', durationSeconds: 8 };
const job = { id: 'job_1', jobType: 'generate_video', status: 'completed', progress: 100, characterId: 'char_1', contentId: 'cnt_1', payload: { credits: 8 }, result: null, error: null, attempts: 1, createdAt: now, startedAt: now, finishedAt: now, workspaceId: 'ws_1' } as JobRecord;

/** Signs by naming the key, so a test sees which key each URL was signed from. */
const urls = { sign: (key: string) => `signed:${key}`, signOrNull: (key?: string | null) => (key ? `signed:${key}` : null) } as unknown as MediaUrls;

describe('content item body', () => {
  it('has exactly the contract fields plus the job, and never storage internals', () => {
    const body = toContentItemBody({ ...base, media: [image], plannedFor: now }, null, urls);
    expect(Object.keys(body).sort()).toEqual([
      'caption', 'character_id', 'content_type', 'created_at', 'cta', 'hashtags', 'id', 'image_prompt', 'job', 'media', 'planned_for',
      'platform', 'published_at', 'rejection_reason', 'status', 'updated_at', 'variants_locked',
    ]);
    expect(body.media).toEqual([{ index: 0, kind: 'image', url: 'signed:content/cnt_1/job_1-0.png', width: 2, height: 3, review_status: 'pending' }]);
    expect(body).toMatchObject({ planned_for: '2030-01-01T00:00:00.000Z', published_at: null, job: null, status: 'queued' });
    // URLs are signed from the keys on every read; the plain URLs records keep never reach a client.
    expect(JSON.stringify(body)).not.toContain('http://h/');
  });

  it('shows a video medium with its thumbnail and duration, and the job without its payload', () => {
    const body = toContentItemBody({ ...base, kind: 'video', media: [video] }, job, urls);
    expect(body.media).toEqual([{ index: 0, kind: 'video', url: 'signed:content/cnt_1/job_1-video.mp4', width: 2, height: 3, review_status: 'pending', thumbnail_url: 'signed:k', duration_seconds: 8 }]);
    expect(body.job).toMatchObject({ id: 'job_1', status: 'completed' });
    expect(body.job).not.toHaveProperty('payload');
  });

  it('a new order answers the item and its job once: the job beside the item, not inside it', () => {
    const body = toOrderedBody({ item: base, job }, urls);
    expect(Object.keys(body).sort()).toEqual(['item', 'job']);
    expect(body.item).not.toHaveProperty('job');
    expect(body.item).toEqual(Object.fromEntries(Object.entries(toContentItemBody(base, job, urls)).filter(([k]) => k !== 'job')));
    expect(body.job).toMatchObject({ id: 'job_1', status: 'completed' });
  });

  it('video status: the video once made, else null', () => {
    const item = { ...base, kind: 'video' as const, status: 'ready' as const, video: { durationSeconds: 8, aspectRatio: '9:16' } };
    expect(toVideoStatusBody({ ...item, media: [video] }, job, urls)).toEqual({
      id: 'cnt_1', status: 'ready', job: expect.objectContaining({ id: 'job_1' }),
      video: { url: 'signed:content/cnt_1/job_1-video.mp4', thumbnail_url: 'signed:k', duration_seconds: 8, aspect_ratio: '9:16' },
    });
    expect(toVideoStatusBody({ ...item, status: 'queued', media: [] }, null, urls)).toEqual({ id: 'cnt_1', status: 'queued', job: null, video: null });
  });
});
