import { beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../../config/index.js';
import type { ScheduledPost } from '../domain/scheduled-post.js';
import { SandboxClient } from '../infrastructure/sandbox-client.js';
import { PublishFailure, type PlatformClient, type PublishResult } from './ports/platform-client.js';
import { Publisher } from './publisher.js';

/**
 * The sweeper's reconciliation of a sent post nobody works on (a worker killed mid-call), with the
 * platform answering found, absent or "cannot tell". Repository, content and keeper are stand-ins.
 */

const LEASE_SECONDS = 40;
const TIMEOUT_MS = 30_000;

function abandonedPost(callAgeMs: number): ScheduledPost {
  const at = new Date(Date.now() - callAgeMs);
  return {
    id: 'sch_1', workspaceId: 'ws_1', contentId: 'cnt_1', characterId: 'chr_1', platform: 'pinterest', platformKey: 'pinterest', status: 'publishing',
    scheduledAt: at, dueAt: at, nextAttemptAt: null, attempts: 1, claimId: 'claim-2', claimedAt: at, callStartedAt: at, remoteHandle: null,
    publishedAt: null, remotePostId: null, remoteUrl: null, mediaUrls: [], error: null, createdAt: at, updatedAt: at,
  };
}

function setUp(client: Pick<PlatformClient, 'reconcile'>, post: ScheduledPost, opts: { claimLost?: boolean } = {}) {
  const calls: string[] = [];
  const events: string[] = [];
  const posts = {
    remoteIdsSince: async () => new Set<string>(),
    resend: async (_tx: unknown, _ws: string, _id: string, claimId: string, settledSeconds: number) => {
      calls.push(`resend ${claimId} settled ${settledSeconds}s`);
      return { ...post, callStartedAt: null, attempts: post.attempts + 1 };
    },
    deferCheck: async (_tx: unknown, _ws: string, _id: string, claimId: string, inMs: number) => void calls.push(`defer ${claimId} ${inMs}`),
    finishAttempt: async (_tx: unknown, _ws: string, _id: string, claimId: string, result: { status: string; error?: { code: string } }) => {
      calls.push(`finish ${claimId} ${result.status}${result.error ? ` ${result.error.code}` : ''}`);
      return opts.claimLost ? null : { ...post, status: result.status };
    },
    publishedAfterAll: async () => null,
    find: async () => post,
  };
  const item = { status: 'approved', contentType: 'single', caption: 'A pin', cta: null, hashtags: [], imagePrompt: 'pin', media: [] };
  const tx = { in: 'the outcome transaction' };
  const ds = { manager: {}, transaction: (work: (tx: unknown) => Promise<unknown>) => work(tx) } as unknown as DataSource;
  const outbox = {
    record: async (into: unknown, e: { type: string; workspaceId: string; payload: unknown }) => {
      events.push(`${into === tx ? 'in tx' : 'outside'} ${e.type} ${e.workspaceId} ${JSON.stringify(e.payload)}`);
    },
  };
  const config = { publishing: { leaseSeconds: LEASE_SECONDS, timeoutMs: TIMEOUT_MS } } as unknown as AppConfig;
  const none = {} as never;
  const publisher = new Publisher(
    ds, config, posts as never,
    { get: async () => item, markPublished: async () => undefined, announce: async () => undefined } as never,
    { recordPost: async () => undefined } as never,
    { usable: async () => ({ accessToken: 'at', accountId: 'acc', accountName: 'Acc', defaultBoardId: 'b1' }) } as never,
    { get: () => client } as never,
    none, { sign: (key: string) => key } as never,
    { changed: async () => undefined } as never,
    { publishOutcome: () => undefined } as never,
    outbox as never,
  );
  return { publisher, calls, events };
}

const FOUND: PublishResult = { remotePostId: 'pin_1', remoteUrl: null, mediaUrls: [] };

describe('Publisher.reconcileAbandoned (a worker killed after sending)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('records a post the platform shows as published', async () => {
    const { publisher, calls } = setUp({ reconcile: async () => FOUND }, abandonedPost(45_000));
    await publisher.reconcileAbandoned(abandonedPost(45_000));
    expect(calls).toEqual(['finish claim-2 published']);
  });

  it('sends once more a post the platform confirms it does not have, past the call budget and grace: never `unconfirmed`', async () => {
    const post = abandonedPost(45_000);
    const { publisher, calls } = setUp({ reconcile: async () => null }, post);
    const after = await publisher.reconcileAbandoned(post);
    expect(calls).toEqual(['resend claim-2 settled 40s']);
    // Back to an unsent attempt under the takeover's claim: the dispatcher queues it.
    expect(after).toMatchObject({ status: 'publishing', callStartedAt: null, claimId: 'claim-2' });
  });

  it('the sandbox behaves the same: its read shows no post, so the post is sent once more', async () => {
    const post = abandonedPost(45_000);
    const { publisher, calls } = setUp(new SandboxClient('pinterest', 'http://127.0.0.1/consent', true), post);
    await publisher.reconcileAbandoned(post);
    expect(calls).toEqual(['resend claim-2 settled 40s']);
  });

  it('checks again later, with back-off, a post whose platform cannot be read now; never sends it', async () => {
    const post = abandonedPost(45_000);
    const { publisher, calls } = setUp({ reconcile: async () => Promise.reject(new PublishFailure('network_error', 'reset')) }, post);
    const after = await publisher.reconcileAbandoned(post);
    expect(calls).toEqual(['defer claim-2 40000']);
    expect(after.status).toBe('publishing');
  });

  it('gives up as `unconfirmed` when the platform still cannot tell 30 min after the call, or can never tell', async () => {
    const late = abandonedPost(31 * 60_000);
    const a = setUp({ reconcile: async () => Promise.reject(new PublishFailure('network_error', 'reset')) }, late);
    await a.publisher.reconcileAbandoned(late);
    expect(a.calls).toEqual(['finish claim-2 failed unconfirmed']);
    const never = abandonedPost(45_000);
    const b = setUp({ reconcile: async () => Promise.reject(new PublishFailure('unconfirmed', 'cannot list')) }, never);
    await b.publisher.reconcileAbandoned(never);
    expect(b.calls).toEqual(['finish claim-2 failed unconfirmed']);
  });
});

describe('Publisher: post.published and post.failed', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('records post.published in the transaction that records the outcome', async () => {
    const post = abandonedPost(45_000);
    const { publisher, events } = setUp({ reconcile: async () => FOUND }, post);
    await publisher.reconcileAbandoned(post);
    expect(events).toEqual(['in tx post.published ws_1 {"postId":"sch_1","platform":"pinterest"}']);
  });

  it('records post.failed for a post given up for good, in the same transaction', async () => {
    const post = abandonedPost(45_000);
    const { publisher, events } = setUp({ reconcile: async () => Promise.reject(new PublishFailure('unconfirmed', 'cannot list')) }, post);
    await publisher.reconcileAbandoned(post);
    expect(events).toEqual(['in tx post.failed ws_1 {"postId":"sch_1","platform":"pinterest"}']);
  });

  it('records nothing when the claim was taken over (the outcome is not recorded), nor for a check deferred or a post sent again', async () => {
    const post = abandonedPost(45_000);
    const lost = setUp({ reconcile: async () => FOUND }, post, { claimLost: true });
    await lost.publisher.reconcileAbandoned(post);
    expect(lost.calls).toEqual(['finish claim-2 published']);
    expect(lost.events).toEqual([]);
    const deferred = setUp({ reconcile: async () => Promise.reject(new PublishFailure('network_error', 'reset')) }, post);
    await deferred.publisher.reconcileAbandoned(post);
    const resent = setUp({ reconcile: async () => null }, post);
    await resent.publisher.reconcileAbandoned(post);
    expect([...deferred.events, ...resent.events]).toEqual([]);
  });
});
