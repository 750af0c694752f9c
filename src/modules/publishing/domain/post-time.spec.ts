import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { PAST_SCHEDULE_GRACE_MS, postTimeFor } from './post-time.js';

const NOW = new Date('2031-03-03T12:00:00.000Z');
const plus = (ms: number) => new Date(NOW.getTime() + ms);

describe('postTimeFor', () => {
  it('keeps a time from now on', () => {
    expect(postTimeFor(plus(1), NOW)).toEqual(plus(1));
    expect(postTimeFor(plus(86_400_000), NOW)).toEqual(plus(86_400_000));
    expect(postTimeFor(NOW, NOW)).toEqual(NOW);
  });

  it('takes a time at most the grace window (60 s) behind as now', () => {
    expect(PAST_SCHEDULE_GRACE_MS).toBe(60_000);
    expect(postTimeFor(plus(-1), NOW)).toEqual(NOW);
    expect(postTimeFor(plus(-30_000), NOW)).toEqual(NOW);
    expect(postTimeFor(plus(-PAST_SCHEDULE_GRACE_MS), NOW)).toEqual(NOW);
  });

  it('refuses an older time with 400 validation_failed on the field', () => {
    for (const ms of [-PAST_SCHEDULE_GRACE_MS - 1, -3600_000, -365 * 86_400_000]) {
      let thrown: unknown;
      try {
        postTimeFor(plus(ms), NOW, 'scheduled_at');
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect(thrown).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'scheduled_at' })] });
    }
  });
});
