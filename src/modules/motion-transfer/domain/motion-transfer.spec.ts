import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../core/index.js';
import { assertMove, canMove, isFinished, motionKeys, motionTransferCredits, MOTION_TRANSFER_STATUSES } from './motion-transfer.js';
import { isStorageKey } from '../../../platform/storage/storage-keys.js';

describe('motion-transfer pricing', () => {
  it.each([
    [5, 10],
    [6, 20],
    [10, 20],
    [11, 30],
    [59, 120],
    [60, 120],
  ])('%i seconds cost %i credits at 10 per started five seconds', (seconds, credits) => {
    expect(motionTransferCredits(seconds, 10)).toBe(credits);
  });

  it('follows the configured price', () => {
    expect(motionTransferCredits(12, 7)).toBe(21);
  });
});

describe('motion-transfer status transitions', () => {
  it('runs queued → processing → completed, or fails from queued or processing', () => {
    expect(canMove('queued', 'processing')).toBe(true);
    expect(canMove('processing', 'completed')).toBe(true);
    expect(canMove('queued', 'failed')).toBe(true);
    expect(canMove('processing', 'failed')).toBe(true);
  });

  it('never skips processing and never leaves a finished state', () => {
    expect(canMove('queued', 'completed')).toBe(false);
    expect(canMove('processing', 'queued')).toBe(false);
    for (const to of MOTION_TRANSFER_STATUSES) {
      expect(canMove('completed', to)).toBe(false);
      expect(canMove('failed', to)).toBe(false);
    }
    expect(isFinished('completed')).toBe(true);
    expect(isFinished('failed')).toBe(true);
    expect(isFinished('queued')).toBe(false);
    expect(isFinished('processing')).toBe(false);
  });

  it('answers a refused move with 409 invalid_state_transition naming the current status', () => {
    expect(() => assertMove('queued', 'processing')).not.toThrow();
    let caught: unknown;
    try {
      assertMove('completed', 'failed');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('invalid_state_transition');
    expect((caught as AppError).details).toMatchObject({ from: 'completed' });
  });
});

describe('motion-transfer storage keys', () => {
  it('are valid storage keys made from ids only', () => {
    const mt = 'mt_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const job = 'job_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    expect(motionKeys.source(mt, 'mp4')).toBe(`motion/${mt}/source.mp4`);
    for (const key of [motionKeys.source(mt, 'webm'), motionKeys.output(mt, job, 'gif'), motionKeys.thumbnail(mt, job, 'png')]) {
      expect(isStorageKey(key)).toBe(true);
    }
  });
});
