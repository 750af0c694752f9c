import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { callProvider } from './provider-call.js';

describe('callProvider', () => {
  it('passes an outage of our own Redis through untouched, so the job runs again after it', async () => {
    const outage = new Error("Stream isn't writeable and enableOfflineQueue options is false");
    await expect(callProvider('image', () => Promise.reject(outage))).rejects.toBe(outage);
  });

  it('shows anything else an adapter throws as a plain provider failure', async () => {
    const err = await callProvider('image', () => Promise.reject(new TypeError('x is undefined'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('upstream_failed');
  });

  it('keeps an adapter’s own readable failure', async () => {
    const failure = new AppError('upstream_failed', 'The image provider answered 500.', { provider: 'image' });
    await expect(callProvider('image', () => Promise.reject(failure))).rejects.toBe(failure);
  });
});
