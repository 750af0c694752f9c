import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ERROR_STATUS } from './error-codes.js';

/** docs/errors.md is the clients' list of codes: every code the service can answer, with its status. */
describe('docs/errors.md', () => {
  const documented = new Map(
    [...readFileSync('docs/errors.md', 'utf8').matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2], Number(m[1])]),
  );

  it('documents every error code with the status the service answers', () => {
    const wrong = Object.entries(ERROR_STATUS)
      .filter(([code, status]) => documented.get(code) !== status)
      .map(([code, status]) => `${code} (${status}) is ${documented.has(code) ? `documented as ${documented.get(code)}` : 'missing'}`);
    expect(wrong).toEqual([]);
  });

  it('documents no code the service does not have', () => {
    expect([...documented.keys()].filter((code) => !(code in ERROR_STATUS))).toEqual([]);
  });
});
