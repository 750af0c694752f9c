import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

/**
 * The README is a guide (set-up, configuration, concepts, running at scale); measured figures live in
 * docs/benchmarks.md, which the README links to. These checks keep it that way.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const benchmarks = readFileSync(join(ROOT, 'docs/benchmarks.md'), 'utf8');

/** Above this the README has become a report again (it was 84 KB, mostly benchmark prose). */
const MAX_README_BYTES = 35 * 1024;

/** How measured throughput, latency and cost read; none of them belongs in the README. */
const BENCH_FIGURES: ReadonlyArray<readonly [string, RegExp]> = [
  ['a latency percentile', /\bp(?:50|75|90|95|99|999)\b/i],
  ['a rate at a load', /\/s at\b/],
  ['a measured rate', /\d[\d,.]*\s*(?:events|orders|requests|req|posts|jobs|syncs|grants|allocations|images)\/s\b/i],
  ['a resident memory size', /\b\d+(?:\.\d+)?\s?MB\b/],
  ['a CPU cost', /\d\s?µs\b/],
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

describe('README.md', () => {
  it(`stays a guide: at most ${MAX_README_BYTES / 1024} KB`, () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(MAX_README_BYTES);
  });

  it('carries no benchmark figures (they are in docs/benchmarks.md)', () => {
    const found = BENCH_FIGURES.flatMap(([what, pattern]) => {
      const line = readme.split('\n').find((l) => pattern.test(l));
      return line === undefined ? [] : [`${what}: ${line.trim()}`];
    });
    expect(found).toEqual([]);
  });

  it('links only to sections docs/benchmarks.md has', () => {
    const anchors = new Set([...benchmarks.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1])));
    const links = [...readme.matchAll(/docs\/benchmarks\.md#([\w-]+)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((a) => !anchors.has(a))).toEqual([]);
  });
});
