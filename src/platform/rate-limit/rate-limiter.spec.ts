import { describe, expect, it } from '@jest/globals';
import { MemoryCounterStore } from './counter-store.js';
import { fixedWindow } from './rate-limiter.js';

describe('fixedWindow', () => {
  it('counts down what remains and never below zero', () => {
    expect(fixedWindow(1, 60, 60, 0).remaining).toBe(59);
    expect(fixedWindow(60, 60, 60, 0).remaining).toBe(0);
    expect(fixedWindow(61, 60, 60, 0).remaining).toBe(0);
  });

  it('answers the seconds left in the current window, at least one', () => {
    expect(fixedWindow(1, 60, 60, 0).resetSeconds).toBe(60);
    expect(fixedWindow(1, 60, 60, 59_500).resetSeconds).toBe(1);
    expect(fixedWindow(1, 60, 60, 60_000 + 15_000).resetSeconds).toBe(45);
  });
});

describe('MemoryCounterStore', () => {
  it('counts per key', async () => {
    const store = new MemoryCounterStore();
    expect(await store.increment('a', 60)).toBe(1);
    expect(await store.increment('a', 60)).toBe(2);
    expect(await store.increment('b', 60)).toBe(1);
  });
});

describe('MemoryCounterStore, stamps', () => {
  it('reads another key in the same call as a hit, null until it is bumped', async () => {
    const store = new MemoryCounterStore();
    expect(await store.incrementAndRead('hits', 60, 'stamp')).toEqual({ count: 1, value: null });
    await store.bump('stamp', 60);
    await store.bump('stamp', 60);
    expect(await store.incrementAndRead('hits', 60, 'stamp')).toEqual({ count: 2, value: '2' });
  });
});
