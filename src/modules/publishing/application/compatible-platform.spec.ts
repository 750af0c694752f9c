import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { compatiblePlatform } from './schedule.service.js';

function refusal(name: string, contentType: 'video' | 'single'): AppError {
  try {
    compatiblePlatform(name, { contentType }, 'platform');
  } catch (err) {
    return err as AppError;
  }
  throw new Error(`${name} took ${contentType}`);
}

describe('compatiblePlatform', () => {
  it('answers the platform an alias means', () => {
    expect(compatiblePlatform('x', { contentType: 'single' })).toBe('twitter');
    expect(compatiblePlatform('short_video', { contentType: 'video' })).toBe('tiktok');
  });

  it('names the platform as the client spelled it, in the message as in the details', () => {
    for (const name of ['x', 'microblog', 'twitter']) {
      const err = refusal(name, 'video');
      expect(err.code).toBe('validation_failed');
      expect(err.message).toBe(`${name} cannot publish video content.`);
      expect(err.details).toEqual([{ field: 'platform', message: `${name} does not take video content` }]);
    }
    expect(refusal('short_video', 'single').message).toBe('short_video cannot publish single content.');
  });
});
