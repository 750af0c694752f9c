import { describe, expect, it } from '@jest/globals';
import { saturated } from './delivery-loop.js';

describe('per-endpoint concurrency in one process', () => {
  it('names the endpoints whose attempts in flight reached the bound, so a claim skips them', () => {
    const inFlight = new Map([['whe_a', 4], ['whe_b', 3], ['whe_c', 5]]);
    expect(saturated(inFlight, 4).sort()).toEqual(['whe_a', 'whe_c']);
    expect(saturated(inFlight, 6)).toEqual([]);
    expect(saturated(new Map(), 1)).toEqual([]);
  });
});
