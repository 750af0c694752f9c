import { describe, expect, it } from '@jest/globals';
import { cosineSimilarity, isEmbedding, l2Normalize, meanVector, sameVector } from './embedding.js';

describe('embedding vectors', () => {
  it('validates dimension and finiteness', () => {
    expect(isEmbedding(new Array(512).fill(0.1))).toBe(true);
    expect(isEmbedding(new Array(511).fill(0.1))).toBe(false);
    expect(isEmbedding([...new Array(511).fill(0.1), Number.NaN])).toBe(false);
    expect(isEmbedding([...new Array(511).fill(0.1), '1'])).toBe(false);
    expect(isEmbedding(null)).toBe(false);
  });

  it('normalises, averages and compares', () => {
    expect(l2Normalize([3, 4])).toEqual([0.6, 0.8]);
    expect(l2Normalize([0, 0])).toEqual([0, 0]);
    expect(meanVector([[1, 2], [3, 6]])).toEqual([2, 4]);
    expect(meanVector([])).toBeNull();
    expect(() => meanVector([[1], [1, 2]])).toThrow();
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(sameVector([1, 2], [1, 2.000001])).toBe(true);
    expect(sameVector([1, 2], [1, 2.1])).toBe(false);
    expect(sameVector(null, [1])).toBe(false);
  });
});
