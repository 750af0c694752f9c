import type pg from 'pg';
import { newId } from '../../src/core/ids.js';
import type { PlatformFakes } from '../../test/fakes/platforms/index.js';
import { adminToken, connectPlatform, register, setPlan, type Account } from '../lib/accounts.js';
import { ApiClient } from '../lib/http.js';
import { table } from '../lib/report.js';
import type { BenchProcess } from '../lib/server.js';
import { describeSpread, sleep } from '../lib/stats.js';
import { PLATFORMS } from './analytics-seed.js';

/**
 * Sync throughput: SYNC_WORKSPACES workspaces, each connected to the five platform fakes through the
 * real OAuth flow, each connection with published posts whose numbers are set at its fake; one
 * on-demand `POST /analytics/sync` per workspace (the route allows one per 10 minutes) and one worker
 * draining the jobs through each adapter's real metric calls.
 *
 * The posts per connection are sized to the quota reserve (publishing's metrics-budget.ts): every
 * fake account has the same id, so every workspace spends one quota per platform here, as an app's
 * would be. Instagram and Pinterest read one post per call (Instagram's metric share is 60 calls an
 * hour), X, YouTube and TikTok up to 100, 50 and 20 a call. More would measure the reserve's 429s,
 * not the sync.
 */
export const SYNC_WORKSPACES = 5;
const POSTS_PER_CONNECTION: Record<(typeof PLATFORMS)[number], number> = { instagram: 10, pinterest: 10, twitter: 100, youtube: 100, tiktok: 100 };
const DRAIN_TIMEOUT_MS = 120_000;

/** Each fake's metric names, as its platform serves them. */
function fakeMetrics(platform: (typeof PLATFORMS)[number], i: number): Record<string, number> {
  const n = 100 + i;
  switch (platform) {
    case 'instagram': return { views: n * 10, reach: n * 8, likes: n, comments: 3, shares: 2, saved: 1 };
    case 'twitter': return { impression_count: n * 10, like_count: n, reply_count: 3, retweet_count: 2, quote_count: 1, bookmark_count: 1 };
    case 'youtube': return { viewCount: n * 10, likeCount: n, commentCount: 3 };
    case 'tiktok': return { view_count: n * 10, like_count: n, comment_count: 3, share_count: 2 };
    case 'pinterest': return { IMPRESSION: n * 10, SAVE: n, PIN_CLICK: 4, OUTBOUND_CLICK: 1 };
  }
}

/** Published posts of one workspace in SQL (within the sync's 90-day window), their numbers set at the fakes. */
async function seedPublished(db: pg.Client, fakes: PlatformFakes, owner: Account, characterId: string, tag: string): Promise<number> {
  let total = 0;
  for (const platform of PLATFORMS) {
    const count = POSTS_PER_CONNECTION[platform];
    const remote = Array.from({ length: count }, (_, i) => `${tag}-${platform}-${i}`);
    const content = remote.map(() => newId('cnt'));
    const posts = remote.map(() => newId('sch'));
    const at = remote.map((_, i) => new Date(Date.now() - (i + 1) * 3_600_000).toISOString());
    await db.query(
      `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, published_at)
       SELECT t.cid, $1, $2, 'published', $3, 'single', 'image', 'bench prompt', 'bench post', t.at FROM unnest($4::text[], $5::timestamptz[]) AS t(cid, at)`,
      [owner.workspaceId, characterId, platform, content, at],
    );
    await db.query(
      `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at, published_at, remote_post_id)
       SELECT t.sid, $1, t.cid, $2, $3, $3, 'published', t.at, t.at, t.at, t.rid FROM unnest($4::text[], $5::text[], $6::timestamptz[], $7::text[]) AS t(sid, cid, at, rid)`,
      [owner.workspaceId, characterId, platform, posts, content, at, remote],
    );
    remote.forEach((id, i) => fakes[platform].setMetrics(id, fakeMetrics(platform, i)));
    total += count;
  }
  // No scheduled sync before the measured ones: the worker's scheduler finds these connections not due.
  await db.query(
    `INSERT INTO analytics_sync_state (workspace_id, platform, next_due_at) SELECT $1, pf, now() + interval '1 day' FROM unnest($2::text[]) AS pf
     ON CONFLICT (workspace_id, platform) DO UPDATE SET next_due_at = EXCLUDED.next_due_at`,
    [owner.workspaceId, [...PLATFORMS]],
  );
  return total;
}

export interface SyncSetup {
  owners: Account[];
  posts: number;
}

export async function seedSync(client: ApiClient, db: pg.Client, fakes: PlatformFakes): Promise<SyncSetup> {
  const admin = await adminToken(client);
  const owners: Account[] = [];
  let posts = 0;
  for (const [name, fake] of Object.entries(fakes)) fake.setFollowers(1000 + name.length);
  for (let w = 0; w < SYNC_WORKSPACES; w++) {
    const owner = await setPlan(client, admin, await register(client, `analytics-sync-${w}-${Date.now().toString(36)}@bench.test`), 'agency');
    for (const platform of PLATFORMS) await connectPlatform(client, owner, platform);
    const character = await client.post<{ character: { id: string } }>('/characters', { name: `Sync ${w}`, niche: 'fitness' }, { token: owner.token, expect: 201 });
    posts += await seedPublished(db, fakes, owner, character.body.character.id, `w${w}`);
    owners.push(owner);
  }
  return { owners, posts };
}

export interface SyncResult {
  seconds: number;
  postsPerSecond: number;
  connectionsPerSecond: number;
  synced: number;
  expected: number;
  skipped: string[];
  summary: string;
}

interface JobRow {
  status: string;
  started_at: Date | null;
  finished_at: Date | null;
  result: { platforms?: Record<string, { status: string; posts?: number; code?: string }> } | null;
}

async function drained(db: pg.Client, ids: string[], worker: BenchProcess): Promise<JobRow[]> {
  const until = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    if (worker.exited) throw new Error(`the worker exited:\n${worker.output.slice(-20).join('\n')}`);
    const rows = (await db.query(`SELECT status, started_at, finished_at, result FROM jobs WHERE id = ANY($1)`, [ids])).rows as JobRow[];
    if (rows.length === ids.length && rows.every((r) => r.status === 'completed' || r.status === 'failed')) return rows;
    if (Date.now() > until) throw new Error(`sync jobs not done within ${DRAIN_TIMEOUT_MS / 1000} s: ${rows.map((r) => r.status).join(', ')}`);
    await sleep(50);
  }
}

/** One on-demand sync per workspace, timed from before the first request to the last job's end. */
export async function measureSync(client: ApiClient, db: pg.Client, fakes: PlatformFakes, setup: SyncSetup, worker: BenchProcess): Promise<SyncResult> {
  const callsBefore = Object.values(fakes).reduce((n, f) => n + f.metricCalls, 0);
  const t0 = Date.now();
  const ids: string[] = [];
  for (const owner of setup.owners) {
    const res = await client.post<{ job: { id: string } }>('/analytics/sync', {}, { token: owner.token, expect: 202 });
    ids.push(res.body.job.id);
  }
  const rows = await drained(db, ids, worker);
  const end = Math.max(...rows.map((r) => r.finished_at?.getTime() ?? Date.now()));
  const seconds = Math.max(0.001, (end - t0) / 1000);
  const outcomes = rows.flatMap((r) => Object.entries(r.result?.platforms ?? {}));
  const skipped = outcomes.filter(([, o]) => o.status !== 'synced').map(([p, o]) => `${p}: ${o.code ?? o.status}`);
  skipped.push(...rows.filter((r) => r.status !== 'completed').map((r) => `job ${r.status}`));
  const synced = Number((await db.query(`SELECT count(*) AS n FROM post_metrics_latest WHERE workspace_id = ANY($1)`, [setup.owners.map((o) => o.workspaceId)])).rows[0].n);
  const connections = outcomes.filter(([, o]) => o.status === 'synced').length;
  const calls = Object.values(fakes).reduce((n, f) => n + f.metricCalls, 0) - callsBefore;
  const runs = rows.filter((r) => r.started_at && r.finished_at).map((r) => r.finished_at!.getTime() - r.started_at!.getTime());
  const perPlatform = PLATFORMS.map((p) => [p, String(POSTS_PER_CONNECTION[p] * SYNC_WORKSPACES), String(fakes[p].metricCalls)]);
  const summary = [
    `sync: ${SYNC_WORKSPACES} workspaces × 5 connections to the fakes, ${setup.posts} published posts; one POST /analytics/sync each, one worker:`,
    table(['platform', 'posts', 'metric calls at the fake'], perPlatform, [false, true, true]),
    `${synced} of ${setup.posts} posts and ${connections} of ${SYNC_WORKSPACES * 5} connections synced in ${seconds.toFixed(2)} s (request → last job finished): ` +
      `${(synced / seconds).toFixed(0)} posts/s, ${(connections / seconds).toFixed(1)} connections/s; ${calls} metric calls; job run time ${describeSpread(runs)}`,
  ].join('\n');
  return { seconds, postsPerSecond: synced / seconds, connectionsPerSecond: connections / seconds, synced, expected: setup.posts, skipped, summary };
}
