import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { AppConfig } from '../../../config/index.js';
import { ProcessLifecycle } from '../../../platform/lifecycle/index.js';
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

/**
 * The dispatcher over in-memory stand-ins: what it claims, queues, releases and hands to the
 * publisher. The tenant repository's stand-in sees a post only through its own workspace.
 */
interface SetupOptions {
  queued?: number;
  due?: ScheduledPost[];
  queueFails?: boolean;
  rows?: ScheduledPost[];
  /** Attempts wait for this before they end. */
  hold?: Promise<void>;
  /** Posts whose call was sent: their claims cannot be given back. */
  sent?: string[];
  /** Messages the queue held unstarted when it closed. */
  dropped?: Array<{ jobId: string; key: string }>;
}

function setup(opts: SetupOptions = {}) {
  const log: string[] = [];
  const rows = opts.rows ?? [];
  const scan = {
    queuedCount: async () => opts.queued ?? 0,
    claimDue: async (_tx: unknown, _claim: string, limit: number) => {
      log.push(`claim ${limit}`);
      return (opts.due ?? []).slice(0, limit);
    },
    abandoned: async () => rows,
    workspaceOfPost: async (_tx: unknown, id: string) => {
      log.push(`look up workspace of ${id}`);
      return rows.find((p) => p.id === id)?.workspaceId ?? null;
    },
  };
  const inWorkspace = (workspaceId: string, id: string) => rows.find((p) => p.id === id && p.workspaceId === workspaceId);
  const posts = {
    releaseClaim: async (_tx: unknown, workspaceId: string, id: string, claimId: string) => {
      if (opts.sent?.includes(id)) return false;
      log.push(`release ${workspaceId} ${id} ${claimId}`);
      return true;
    },
    find: async (_tx: unknown, workspaceId: string, id: string) => inWorkspace(workspaceId, id) ?? null,
    reclaim: async (_tx: unknown, workspaceId: string, id: string) => {
      const row = inWorkspace(workspaceId, id);
      return row ? { ...row, claimId: 'claim2' } : null;
    },
  };
  const running = new Set<Promise<unknown>>();
  const queue = {
    add: async (id: string, key?: string) => {
      if (opts.queueFails) throw new Error('redis away');
      log.push(`queue ${id} ${key}`);
    },
    // Like the transports: waits for the runs until `letGo`, then reports what it left.
    close: async (letGo: Promise<unknown>) => {
      log.push('queue closing');
      const ended = await Promise.race([Promise.all(running).then(() => true), letGo.then(() => false)]);
      return { finished: ended ? running.size : 0, abandoned: ended ? 0 : running.size, dropped: opts.dropped ?? [] };
    },
  };
  const events = { changed: async (...changed: ScheduledPost[]) => void log.push(`event ${changed.map((p) => p.id).join(',')}`) };
  const publisher = {
    attempt: async (p: ScheduledPost) => {
      log.push(`attempt ${p.id}`);
      const run = opts.hold ?? Promise.resolve();
      running.add(run);
      await run;
      running.delete(run);
      return p;
    },
    reconcileAbandoned: async (p: ScheduledPost) => (log.push(`reconcile ${p.id} ${p.claimId}`), p),
  };
  const states = { purgeExpired: async () => 0 };
  const config = new AppConfig({ JWT_SECRET: 'j'.repeat(40), TOKEN_ENCRYPTION_KEY: 't'.repeat(40), PUBLISH_DISPATCH_BATCH: '10' });
  const dispatcher = new Dispatcher(
    'worker', config, { manager: {} } as unknown as DataSource, scan, posts as unknown as ScheduledPostsRepository,
    states as unknown as OAuthStatesRepository, publisher as unknown as Publisher, events as unknown as PostEvents, queue as unknown as JobTransport,
    new ProcessLifecycle(),
  );
  return { dispatcher, log };
}

describe('Dispatcher', () => {
  it('claims a batch, announces it, then queues each post with its workspace, keyed by post and claim', async () => {
    const { dispatcher, log } = setup({ due: [post('sch_1'), post('sch_2', { workspaceId: 'ws_b' })] });
    expect(await dispatcher.dispatchOnce()).toBe(2);
    expect(log).toEqual(['claim 10', 'event sch_1,sch_2', 'queue ws_a/sch_1 sch_1:claim1', 'queue ws_b/sch_2 sch_2:claim1']);
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
    expect(log).toEqual(['claim 10', 'event sch_1', 'release ws_a sch_1 claim1']);
  });

  it('runs a queued post only while it is publishing and nothing was sent for it', async () => {
    const rows = [post('sch_live'), post('sch_sent', { callStartedAt: new Date() }), post('sch_done', { status: 'published' })];
    const { dispatcher, log } = setup({ rows });
    for (const id of ['sch_live', 'sch_sent', 'sch_done', 'sch_gone']) await dispatcher.run(`ws_a/${id}`);
    expect(log).toEqual(['attempt sch_live']);
  });

  it('finds nothing to run for a message naming another workspace than the post\'s', async () => {
    const { dispatcher, log } = setup({ rows: [post('sch_live')] });
    await dispatcher.run('ws_b/sch_live');
    expect(log).toEqual([]);
  });

  it('runs a message of the previous release (the bare post id) in the workspace the post belongs to', async () => {
    const rows = [post('sch_live', { workspaceId: 'ws_b' }), post('sch_done', { status: 'published' })];
    const { dispatcher, log } = setup({ rows });
    for (const id of ['sch_live', 'sch_done', 'sch_gone']) await dispatcher.run(id);
    expect(log).toEqual(['look up workspace of sch_live', 'attempt sch_live', 'look up workspace of sch_done', 'look up workspace of sch_gone']);
  });

  it('takes over abandoned claims: queues what was not sent, reconciles what was', async () => {
    const rows = [post('sch_unsent'), post('sch_sent', { workspaceId: 'ws_b', callStartedAt: new Date() })];
    const { dispatcher, log } = setup({ rows });
    expect(await dispatcher.sweep()).toBe(2);
    expect(log).toEqual(['queue ws_a/sch_unsent sch_unsent:claim2', 'reconcile sch_sent claim2']);
  });

  it('at a stop, gives back the claims of attempts not sent and of messages held unstarted, and leaves a sent one to the sweeper', async () => {
    let releaseAt!: () => void;
    const rows = [post('sch_unsent'), post('sch_sent', { claimId: 'claim7' })];
    const { dispatcher, log } = setup({
      rows, hold: new Promise(() => undefined), sent: ['sch_sent'],
      dropped: [{ jobId: 'ws_a/sch_waiting', key: 'sch_waiting:claim3' }, { jobId: 'ws_a/sch_odd', key: 'other:claim3' }],
    });
    void dispatcher.run('ws_a/sch_unsent');
    void dispatcher.run('ws_a/sch_sent');
    const closing = dispatcher.close(new Promise<void>((resolve) => (releaseAt = resolve)));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['attempt sch_unsent', 'attempt sch_sent', 'queue closing']);
    releaseAt();
    await expect(closing).resolves.toEqual({ posts_finished: 0, posts_released: 2 });
    expect(log.slice(3)).toEqual(['release ws_a sch_unsent claim1', 'release ws_a sch_waiting claim3']);
    // The stop's listener and the shutdown hook share one close.
    await expect(dispatcher.beforeApplicationShutdown()).resolves.toBeUndefined();
    expect(log.filter((l) => l === 'queue closing')).toHaveLength(1);
  });

  it('a stop whose attempts all end before the release point gives nothing back', async () => {
    const { dispatcher, log } = setup({ rows: [post('sch_1')] });
    await dispatcher.run('ws_a/sch_1');
    await expect(dispatcher.close(new Promise(() => undefined))).resolves.toEqual({ posts_finished: 0, posts_released: 0 });
    expect(log).toEqual(['attempt sch_1', 'queue closing']);
  });
});
