import { describe, expect, it } from '@jest/globals';
import { SqlParams } from './sql-params.js';

describe('SqlParams', () => {
  it('numbers placeholders in the order values are bound, across parts', () => {
    const p = new SqlParams();
    const first = `INSERT INTO a VALUES (${p.bindAll(['x', 1])})`;
    const second = `UPDATE b SET n = n + ${p.bind(5)} WHERE id = ${p.bind('y')}`;
    expect(first).toBe('INSERT INTO a VALUES ($1, $2)');
    expect(second).toBe('UPDATE b SET n = n + $3 WHERE id = $4');
    expect(p.values).toEqual(['x', 1, 5, 'y']);
  });

  it('binds null and undefined as values too', () => {
    const p = new SqlParams();
    expect(p.bindAll([null, undefined])).toBe('$1, $2');
    expect(p.values).toEqual([null, undefined]);
  });
});
