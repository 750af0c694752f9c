import { describe, expect, it } from '@jest/globals';
import { mergeErrorTables } from './error-status.js';

describe('mergeErrorTables', () => {
  it('merges every table into one code → status map', () => {
    const map = mergeErrorTables({ core: { not_found: 404, internal_error: 500 }, shop: { sold_out: 409 } });
    expect(map).toEqual({ not_found: 404, internal_error: 500, sold_out: 409 });
  });

  it('throws, naming the code and both owners, when two tables declare the same code', () => {
    expect(() => mergeErrorTables({ core: { not_found: 404 }, shop: { sold_out: 409 }, stock: { sold_out: 409 } })).toThrow(
      'error code sold_out is declared twice: by shop and by stock',
    );
  });

  it('throws on a shared code even when the statuses differ', () => {
    expect(() => mergeErrorTables({ a: { gone: 404 }, b: { gone: 410 } })).toThrow(/gone is declared twice/);
  });
});
