import { describe, expect, it } from '@jest/globals';
import { SandboxClient, simulatedFollowers, simulatedMetrics } from './sandbox-client.js';

describe('sandbox metrics', () => {
  it('are the same for the same post and day, and differ between posts', () => {
    expect(simulatedMetrics('sandbox_post_a', '2026-03-01')).toEqual(simulatedMetrics('sandbox_post_a', '2026-03-01'));
    expect(simulatedMetrics('sandbox_post_a', '2026-03-01')).not.toEqual(simulatedMetrics('sandbox_post_b', '2026-03-01'));
  });

  it('never go down from one day to the next', () => {
    const days = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-04-15'];
    const reads = days.map((d) => simulatedMetrics('sandbox_post_a', d));
    for (let i = 1; i < reads.length; i += 1) {
      for (const key of Object.keys(reads[i]) as Array<keyof (typeof reads)[number]>) expect(reads[i][key]!).toBeGreaterThanOrEqual(reads[i - 1][key]!);
    }
    expect(simulatedFollowers('sandbox-x', '2026-03-02')).toBeGreaterThan(simulatedFollowers('sandbox-x', '2026-03-01'));
  });

  it('come from the sandbox client for every post asked about', async () => {
    const client = new SandboxClient('tiktok', 'http://localhost/consent', false);
    const day = new Date('2026-03-01T15:00:00Z');
    const reading = await client.readMetrics({ accessToken: 'sandbox_at', account: { id: 'sandbox-tiktok', name: 'S' }, remotePostIds: ['p1', 'p2'] }, day);
    expect(reading.followers).toBe(simulatedFollowers('sandbox-tiktok', '2026-03-01'));
    expect(reading.posts).toEqual([
      { remotePostId: 'p1', metrics: simulatedMetrics('p1', '2026-03-01') },
      { remotePostId: 'p2', metrics: simulatedMetrics('p2', '2026-03-01') },
    ]);
  });
});
