import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import type { JobTransport } from '../../../platform/queue/index.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';
import type { OAuthStatesRepository } from '../infrastructure/oauth-states.repository.js';
import type { ScheduledPostsRepository } from '../infrastructure/scheduled-posts.repository.js';
import { Dispatcher } from './dispatcher.js';
import type { PostEvents } from './post-events.js';
import type { Publisher } from './publisher.js';

const post = (id: string, over: Partial<ScheduledPost> = {}): ScheduledPost => ({
  id, workspaceId: 'ws_a', contentId: 'cnt_a', characterId: 'char_a', platform: 'x', platformKey: 'twitter', status: 'publishing',
  scheduledAt: new Date(0), dueAt: new Date(0), nextAttemptAt: null, attempts: 1, claimId: 'claim1', claimedAt: new Date(0),
  callStartedAt: null, remoteHandle: null, publishedAt: null, remotePostId: null, remoteUrl: null, mediaUrls: [], error: null,
  createdAt: new Date(0), updatedAt: new Date(0), ...over,
});

/** The dispatcher over in-memory stand-ins: what it claims, queues, releases and hands to the publisher. */
function setup(opts: { queued?: number; due?: ScheduledPost[]; queueFails?: boolean; rows?: ScheduledPost[] } = {}) {
  const log: string[] = [];
  const posts = {
    queuedCount: async () => opts.queued ?? 0,
    claimDue: async (_tx: unknown, _claim: string, limit: number) => {
      log.push(`claim ${limit}`);
      return (opts.due ?? []).slice(0, limit);
    },
    releaseClaim: async (_tx: unknown, id: string, claimId: string) => void log.push(`release ${id} ${claimId}`),
    findForPublishing: async (_tx: unknown, id: string) => (opts.rows ?? []).find((p) => p.id === id) ?? null,
    abandoned: async () => opts.rows ?? [],
    reclaim: async (_tx: unknown, id: string) => ({ ...(opts.rows ?? []).find((p) => p.id === id)!, claimId: 'claim2' }),
  };
  const queue = {
    add: async (id: string, key?: string) => {
      if (opts.queueFails) throw new Error('redis away');
      log.push(`queue ${id} ${key}`);
    },
  };
  const events = { changed: async (...changed: ScheduledPost[]) => void log.push(`event ${changed.map((p) => p.id).join(',')}`) };
  const publisher = {
    attempt: async (p: ScheduledPost) => (log.push(`attempt ${p.id}`), p),
    reconcileAbandoned: async (p: ScheduledPost) => (log.push(`reconcile ${p.id} ${p.claimId}`), p),
  };
  const states = { purgeExpired: async () => 0 };
  const config = new AppConfig({ JWT_SECRET: 'j'.repeat(40), TOKEN_ENCRYPTION_KEY: 't'.repeat(40), PUBLISH_DISPATCH_BATCH: '10' });
  const dispatcher = new Dispatcher(
    'worker', config, { manager: {} } as unknown as DataSource, posts as unknown as ScheduledPostsRepository,
    states as unknown as OAuthStatesRepository, publisher as unknown as Publisher, events as unknown as PostEvents, queue as unknown as JobTransport,
  );
  return { dispatcher, log };
}

describe('Dispatcher', () => {
  it('claims a batch, announces it, then queues each post keyed by post and claim', async () => {
    const { dispatcher, log } = setup({ due: [post('sch_1'), post('sch_2')] });
    expect(await dispatcher.dispatchOnce()).toBe(2);
    expect(log).toEqual(['claim 10', 'event sch_1,sch_2', 'queue sch_1 sch_1:claim1', 'queue sch_2 sch_2:claim1']);
  });

  it('claims only the room left under two queued batches, and nothing when the queue is full', async () => {
    const partly = setup({ queued: 15, due: [post('sch_1')] });
    await partly.dispatcher.dispatchOnce();
    expect(partly.log[0]).toBe('claim 5');
    const full = setup({ queued: 20, due: [post('sch_1')] });
    expect(await full.dispatcher.dispatchOnce()).toBe(0);
    expect(full.log).toEqual([]);
  });

  it('gives the claim back when the queue refuses the message', async () => {
    const { dispatcher, log } = setup({ due: [post('sch_1')], queueFails: true });
    await dispatcher.dispatchOnce();
    expect(log).toEqual(['claim 10', 'event sch_1', 'release sch_1 claim1']);
  });

  it('runs a queued post only while it is publishing and nothing was sent for it', async () => {
    const rows = [post('sch_live'), post('sch_sent', { callStartedAt: new Date() }), post('sch_done', { status: 'published' })];
    const { dispatcher, log } = setup({ rows });
    for (const id of ['sch_live', 'sch_sent', 'sch_done', 'sch_gone']) await dispatcher.run(id);
    expect(log).toEqual(['attempt sch_live']);
  });

  it('takes over abandoned claims: queues what was not sent, reconciles what was', async () => {
    const rows = [post('sch_unsent'), post('sch_sent', { callStartedAt: new Date() })];
    const { dispatcher, log } = setup({ rows });
    expect(await dispatcher.sweep()).toBe(2);
    expect(log).toEqual(['queue sch_unsent sch_unsent:claim2', 'reconcile sch_sent claim2']);
  });
});
