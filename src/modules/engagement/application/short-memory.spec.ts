import { ShortMemory } from './short-memory.js';

describe('ShortMemory', () => {
  it('asks once within its time, again after it, and starts over past its capacity', async () => {
    const memory = new ShortMemory<number>(1000, 2);
    let loads = 0;
    const load = async () => ++loads;
    expect(await memory.get('a', load, 0)).toBe(1);
    expect(await memory.get('a', load, 999)).toBe(1);
    expect(await memory.get('a', load, 1000)).toBe(2);
    await memory.get('b', load, 1000);
    await memory.get('c', load, 1000);
    expect(await memory.get('a', load, 1001)).toBe(5);
  });
});
