import { describe, expect, it } from '@jest/globals';
import { jsonParam } from './transactions.js';

describe('jsonParam', () => {
  it('sends SQL NULL for null and undefined, not the JSON literal null', () => {
    expect(jsonParam(null)).toBeNull();
    expect(jsonParam(undefined)).toBeNull();
  });

  it('sends arrays and objects as JSON text (the driver would make an array a PostgreSQL array)', () => {
    expect(jsonParam(['a', 'b'])).toBe('["a","b"]');
    expect(jsonParam({ credits: 3, images: [] })).toBe('{"credits":3,"images":[]}');
    expect(jsonParam([])).toBe('[]');
  });
});
