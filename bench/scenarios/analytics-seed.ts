import type pg from 'pg';
import { newId } from '../../src/core/ids.js';

/**
 * One year of analytics for one workspace, written in SQL as the sync and the retention sweep would
 * have left it: published posts (content items and scheduled posts, for the foreign keys), their
 * latest metrics, their snapshots (daily for the last 90 days, the latest of each ISO week before),
 * and one follower day per account and day. A workspace has one connection, so one account, per
 * platform; the per-character follower series reads the accounts that character's posts went to.
 */
export const PLATFORMS = ['instagram', 'tiktok', 'twitter', 'youtube', 'pinterest'] as const;
export const HISTORY_DAYS = 365;
const DAY_MS = 86_400_000;

export interface SeededHistory {
  posts: number;
  snapshots: number;
  followerDays: number;
  seconds: number;
}

/** Posts spread evenly over the year (newest an hour ago), round-robin over characters and platforms. */
function postPlan(characterIds: string[], posts: number) {
  const span = HISTORY_DAYS * DAY_MS - 2 * 3_600_000;
  const now = Date.now() - 3_600_000;
  const plan = { content: [] as string[], post: [] as string[], character: [] as string[], platform: [] as string[], at: [] as string[] };
  for (let i = 0; i < posts; i++) {
    plan.content.push(newId('cnt'));
    plan.post.push(newId('sch'));
    plan.character.push(characterIds[i % characterIds.length]);
    // The platform turns every full round of characters, so each character posts on all five.
    plan.platform.push(PLATFORMS[Math.floor(i / characterIds.length) % PLATFORMS.length]);
    plan.at.push(new Date(now - Math.floor((i * span) / posts)).toISOString());
  }
  return plan;
}

async function seedPosts(db: pg.Client, workspaceId: string, characterIds: string[], posts: number): Promise<void> {
  const p = postPlan(characterIds, posts);
  await db.query(
    `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, published_at)
     SELECT t.cid, $1, t.chr, 'published', t.pf, 'single', 'image', 'bench prompt', 'bench post ' || t.ord, t.at
       FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[]) WITH ORDINALITY AS t(cid, chr, pf, at, ord)`,
    [workspaceId, p.content, p.character, p.platform, p.at],
  );
  await db.query(
    `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at, published_at, remote_post_id, remote_url)
     SELECT t.sid, $1, t.cid, t.chr, t.pf, t.pf, 'published', t.at, t.at, t.at, 'remote-' || t.ord, 'https://example.test/p/' || t.ord
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) WITH ORDINALITY AS t(sid, cid, chr, pf, at, ord)`,
    [workspaceId, p.post, p.content, p.character, p.platform, p.at],
  );
  // Numbers vary per post (a hash of its id) so that sorting by engagement has work to do.
  await db.query(
    `INSERT INTO post_metrics_latest (scheduled_post_id, workspace_id, content_id, character_id, platform, account_id, remote_url, published_at,
                                      impressions, views, likes, comments, shares, saves, engagement_rate, simulated, synced_at)
     SELECT s.id, s.workspace_id, s.content_id, s.character_id, s.platform_key, 'bench-' || s.platform_key, s.remote_url, s.published_at,
            m.reach, m.reach, m.likes, m.likes / 10, m.likes / 20, m.likes / 15,
            round((m.likes + m.likes / 10 + m.likes / 20 + m.likes / 15)::numeric / m.reach, 6), false, now() - interval '1 hour'
       FROM scheduled_posts s
       CROSS JOIN LATERAL (SELECT 1000 + abs(hashtext(s.id)) % 50000 AS reach, 10 + abs(hashtext(s.id || 'l')) % 2000 AS likes) m
      WHERE s.workspace_id = $1`,
    [workspaceId],
  );
}

/** Each post's snapshots from its publish day until 90 days after it (the sync window), kept as the retention sweep keeps them. */
async function seedSnapshots(db: pg.Client, workspaceId: string): Promise<void> {
  await db.query(
    `INSERT INTO post_metric_snapshots (id, workspace_id, scheduled_post_id, content_id, character_id, platform, account_id, published_at,
                                        impressions, views, likes, comments, shares, saves, engagement_rate, simulated, synced_day, synced_at)
     SELECT gen_random_uuid()::text, p.workspace_id, p.scheduled_post_id, p.content_id, p.character_id, p.platform, p.account_id, p.published_at,
            (p.impressions * f.k)::int, (p.views * f.k)::int, (p.likes * f.k)::int, (p.comments * f.k)::int, (p.shares * f.k)::int, (p.saves * f.k)::int,
            p.engagement_rate, false, g.d::date, g.d + interval '12 hours'
       FROM post_metrics_latest p
       CROSS JOIN LATERAL generate_series(p.published_at::date, LEAST(p.published_at::date + 90, current_date), interval '1 day') AS g(d)
       CROSS JOIN LATERAL (SELECT LEAST(1.0, (g.d::date - p.published_at::date + 1) / 30.0) AS k) f
      WHERE p.workspace_id = $1
        AND (g.d >= current_date - 90 OR extract(isodow FROM g.d) = 7 OR g.d::date = LEAST(p.published_at::date + 90, current_date - 91))`,
    [workspaceId],
  );
}

async function seedFollowers(db: pg.Client, workspaceId: string): Promise<void> {
  await db.query(
    `INSERT INTO account_follower_days (workspace_id, platform, account_id, day, followers, simulated, synced_at)
     SELECT $1, pf, 'bench-' || pf, d::date, 1000 + n * 37 + (abs(hashtext(pf)) % 500) * n / 100, false, d + interval '12 hours'
       FROM unnest($2::text[]) AS pf
       CROSS JOIN LATERAL generate_series(current_date - ($3::int - 1), current_date, interval '1 day') WITH ORDINALITY AS g(d, n)`,
    [workspaceId, [...PLATFORMS], HISTORY_DAYS],
  );
  await db.query(
    `INSERT INTO analytics_sync_state (workspace_id, platform, last_synced_at, next_due_at)
     SELECT $1, pf, now() - interval '1 hour', now() + interval '5 hours' FROM unnest($2::text[]) AS pf`,
    [workspaceId, [...PLATFORMS]],
  );
}

export async function seedHistory(db: pg.Client, workspaceId: string, characterIds: string[], posts: number): Promise<SeededHistory> {
  const started = Date.now();
  await seedPosts(db, workspaceId, characterIds, posts);
  await seedSnapshots(db, workspaceId);
  await seedFollowers(db, workspaceId);
  await db.query('ANALYZE');
  const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId])).rows[0].n);
  return {
    posts: await count('post_metrics_latest'),
    snapshots: await count('post_metric_snapshots'),
    followerDays: await count('account_follower_days'),
    seconds: (Date.now() - started) / 1000,
  };
}
