import { ShortMemory } from './short-memory.js';

describe('ShortMemory', () => {
  it('asks once within its time, again after it, and starts over past its capacity', async () => {
    const memory = new ShortMemory<number>(1000, () => true, 2);
    let loads = 0;
    const load = async () => ++loads;
    expect(await memory.get('a', load, 0)).toBe(1);
    expect(await memory.get('a', load, 999)).toBe(1);
    expect(await memory.get('a', load, 1000)).toBe(2);
    await memory.get('b', load, 1000);
    await memory.get('c', load, 1000);
    expect(await memory.get('a', load, 1001)).toBe(5);
  });

  it('asks again each time for an answer it is told not to keep', async () => {
    const memory = new ShortMemory<string[]>(1000, (v) => v.length > 0);
    let loads = 0;
    const load = async () => (++loads > 2 ? ['ws_1'] : []);
    expect(await memory.get('acct', load, 0)).toEqual([]);
    expect(await memory.get('acct', load, 1)).toEqual([]);
    expect(await memory.get('acct', load, 2)).toEqual(['ws_1']);
    expect(await memory.get('acct', load, 3)).toEqual(['ws_1']);
    expect(loads).toBe(3);
  });
});
