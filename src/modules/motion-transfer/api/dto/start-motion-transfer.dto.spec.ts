import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { AppError } from '../../../../core/index.js';
import { strictValidationPipe } from '../../../../platform/http/index.js';
import { StartMotionTransferDto } from './start-motion-transfer.dto.js';

const meta: ArgumentMetadata = { type: 'body', metatype: StartMotionTransferDto };
const pipe = strictValidationPipe();

async function fieldsRefused(body: Record<string, unknown>): Promise<string[]> {
  try {
    await pipe.transform(body, meta);
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.code).toBe('validation_failed');
    return (err.details as Array<{ field: string }>).map((d) => d.field);
  }
}

describe('StartMotionTransferDto', () => {
  it('accepts an http(s) URL, a duration of 5 to 60 and a known aspect ratio', async () => {
    const dto = (await pipe.transform({ reference_video_url: '  https://cdn.example.com/a.mp4 ', duration_seconds: 60, aspect_ratio: '16:9' }, meta)) as StartMotionTransferDto;
    expect(dto).toMatchObject({ reference_video_url: 'https://cdn.example.com/a.mp4', duration_seconds: 60, aspect_ratio: '16:9' });
    expect(await fieldsRefused({ reference_video_url: 'http://127.0.0.1:8080/x.webm', duration_seconds: 5 })).toEqual([]);
    expect(await fieldsRefused({})).toEqual([]);
  });

  it('reads whole numbers sent as multipart text', async () => {
    const dto = (await pipe.transform({ duration_seconds: '15', aspect_ratio: '1:1' }, meta)) as StartMotionTransferDto;
    expect(dto.duration_seconds).toBe(15);
  });

  it.each([
    ['reference_video_url', { reference_video_url: 'ftp://cdn.example.com/a.mp4' }],
    ['reference_video_url', { reference_video_url: 'file:///etc/passwd' }],
    ['reference_video_url', { reference_video_url: 'https://user:pw@cdn.example.com/a.mp4' }],
    ['reference_video_url', { reference_video_url: 'not a url' }],
    ['reference_video_url', { reference_video_url: null }],
    ['reference_video_url', { reference_video_url: `https://x.example/${'a'.repeat(2100)}` }],
    ['duration_seconds', { duration_seconds: 4 }],
    ['duration_seconds', { duration_seconds: 61 }],
    ['duration_seconds', { duration_seconds: 7.5 }],
    ['duration_seconds', { duration_seconds: '7.5' }],
    ['duration_seconds', { duration_seconds: 'ten' }],
    ['aspect_ratio', { aspect_ratio: '4:3' }],
    ['aspect_ratio', { aspect_ratio: null }],
    ['mood', { mood: 'happy' }],
  ])('refuses a bad %s (case %#)', async (field, body) => {
    expect(await fieldsRefused(body)).toContain(field);
  });
});
