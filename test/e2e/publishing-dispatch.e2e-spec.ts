// @e2e services-only: two workers sharing PostgreSQL + Redis.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { AppConfig } from '../../src/config/config.js';
import { newId } from '../../src/core/ids.js';
import { api, registerUser, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, startWorker, waitFor, type Backing, type RunningProcess, type TestServer } from '../helpers/server.js';
import { platformEnv } from '../fakes/platforms/index.js';
import { PINTEREST_PATHS, startPinterestFake, type PinterestFake } from '../fakes/platforms/pinterest.js';

/**
 * The acceptance test of the publish dispatcher, always on real PostgreSQL + Redis: two worker
 * processes publish thousands of due posts to the Pinterest fake (one irreversible call per post)
 * exactly once, and a worker killed mid-run and started again posts nothing twice and leaves no
 * post stuck in `publishing`.
 */

const CONCURRENCY = 16;
const LEASE_SECONDS = 3;
/** How often each worker sweeps (dispatcher.ts: a quarter of the lease, at least every second, at most every 30 s). */
const SWEEP_EVERY_SECONDS = Math.min(30, Math.max(1, LEASE_SECONDS / 4));
/** How many abandoned posts one sweep takes over at most (dispatcher.ts, SWEEP_BATCH). */
const SWEEP_BATCH = 50;
/**
 * What the crash bound allows beyond the lease and the sweeps: a sweep's own work (each sent post it
 * takes over is reconciled by listing the board) and the restarted worker's start, which takes the CPU
 * from the live worker on a small machine. Measured on the 2-core CI machine with the accounts work
 * (a worker now starts in ~12 s while the live one sweeps): the last post moved on 13.2-14.9 s after
 * the kill against 13 s with a 5 s margin. 8 s keeps the bound (16 s for ~220 posts) well below what
 * it tells apart: Bull's stalled-job check (30 s) or a post left forever.
 */
const TAKEOVER_MARGIN_SECONDS = 8;
/** The workers' budget for one platform call: long enough for a test to hold Pinterest's answers past the lease and a sweep. */
const CALL_TIMEOUT_MS = 60_000;
const BOARD_ID = '1001';
/** The marker every seeded caption starts with: `[<run>#<n>]`; it stays in the Pin's title and description. */
const MARKER = /^\[([a-z]+#\d+)\]/;

interface PostRow {
  id: string;
  status: string;
  remote_post_id: string | null;
  error_code: string | null;
  caption: string;
}

interface Seeded {
  postIds: string[];
  /** When the rows became visible (the seeding transaction committed). */
  committedAt: number;
}

const markerOf = (text: string): string | undefined => MARKER.exec(text)?.[1];

/** Copies the approved item `sourceId` into `count` new approved items and a due pending Pinterest post for each, in one transaction. */
async function seedDuePosts(db: pg.Pool, sourceId: string, run: string, count: number): Promise<Seeded> {
  const contentIds = Array.from({ length: count }, () => newId('cnt'));
  const postIds = Array.from({ length: count }, () => newId('sch'));
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const { rows: [source] } = await client.query<{ caption: string | null }>('SELECT caption FROM content_items WHERE id = $1', [sourceId]);
    const captions = contentIds.map((_id, i) => `[${run}#${i}] ${source.caption ?? 'A fresh pin'}`);
    const items = await client.query(
      `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, hashtags, cta, media, variants, video, language)
       SELECT n.id, s.workspace_id, s.character_id, 'approved', s.platform, s.content_type, s.kind, s.image_prompt, n.caption, s.hashtags, s.cta, s.media, s.variants, s.video, s.language
         FROM content_items s, unnest($2::text[], $3::text[]) AS n(id, caption) WHERE s.id = $1`,
      [sourceId, contentIds, captions],
    );
    expect(items.rowCount).toBe(count);
    const posts = await client.query(
      `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at)
       SELECT p.id, c.workspace_id, c.id, c.character_id, 'pinterest', 'pinterest', 'pending', now(), now()
         FROM unnest($1::text[], $2::text[]) AS p(id, content_id) JOIN content_items c ON c.id = p.content_id`,
      [postIds, contentIds],
    );
    expect(posts.rowCount).toBe(count);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  return { postIds, committedAt: Date.now() };
}

async function statusCounts(db: pg.Pool, postIds: string[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM scheduled_posts WHERE id = ANY($1) GROUP BY status', [postIds]);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

async function postRows(db: pg.Pool, postIds: string[]): Promise<PostRow[]> {
  const { rows } = await db.query<PostRow>(
    `SELECT p.id, p.status, p.remote_post_id, p.error_code, c.caption
       FROM scheduled_posts p JOIN content_items c ON c.id = p.content_id WHERE p.id = ANY($1)`,
    [postIds],
  );
  return rows;
}

interface InFlight {
  id: string;
  claim_id: string;
}

/** The posts whose irreversible call was sent and has no outcome yet, with the claim they are sent under. */
async function inFlightCalls(db: pg.Pool, postIds: string[]): Promise<InFlight[]> {
  const { rows } = await db.query<InFlight>(
    `SELECT id, claim_id FROM scheduled_posts WHERE id = ANY($1) AND status = 'publishing' AND call_started_at IS NOT NULL ORDER BY id`,
    [postIds],
  );
  return rows;
}

/**
 * Plants a due post as a worker that died would leave it (`publishing`, nothing sent, no message
 * queued), its claim taken 1 ms after the newest call of `sentIds` was sent. The sweeper reads lapsed
 * claims oldest first, so the sweep that takes this one over also read every post of `sentIds` whose
 * claim is no younger than its call: a sweep that took nothing of those left their claims alone.
 */
async function plantAbandonedPost(db: pg.Pool, sourceId: string, marker: string, sentIds: string[]): Promise<{ postId: string; claimId: string }> {
  const contentId = newId('cnt');
  const postId = newId('sch');
  const claimId = `planted-${postId}`;
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const item = await client.query(
      `INSERT INTO content_items (id, workspace_id, character_id, status, platform, content_type, kind, image_prompt, caption, hashtags, cta, media, variants, video, language)
       SELECT $2, s.workspace_id, s.character_id, 'approved', s.platform, s.content_type, s.kind, s.image_prompt, $3 || COALESCE(s.caption, 'A fresh pin'), s.hashtags, s.cta, s.media, s.variants, s.video, s.language
         FROM content_items s WHERE s.id = $1`,
      [sourceId, contentId, `[${marker}] `],
    );
    expect(item.rowCount).toBe(1);
    const { rows: [post] } = await client.query<{ claimed_at: Date | null }>(
      `INSERT INTO scheduled_posts (id, workspace_id, content_id, character_id, platform, platform_key, status, scheduled_at, due_at, attempts, claim_id, claimed_at)
       SELECT $1, c.workspace_id, c.id, c.character_id, 'pinterest', 'pinterest', 'publishing', now(), now(), 1, $3,
              (SELECT max(call_started_at) FROM scheduled_posts WHERE id = ANY($4)) + interval '1 millisecond'
         FROM content_items c WHERE c.id = $2 RETURNING claimed_at`,
      [postId, contentId, claimId, sentIds],
    );
    expect(post.claimed_at).toBeInstanceOf(Date);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  return { postId, claimId };
}

/** Holds the fake's answers to publish calls (each Pin is made, its caller waits) until `release`. */
function holdAnswers(fake: PinterestFake) {
  const respond = fake.respond.bind(fake);
  const held: Array<() => void> = [];
  let firstHeldAt: number | undefined;
  fake.respond = (res, status, body) => {
    firstHeldAt ??= Date.now();
    held.push(() => respond(res, status, body));
  };
  return {
    count: () => held.length,
    heldMs: () => (firstHeldAt === undefined ? 0 : Date.now() - firstHeldAt),
    release: () => {
      fake.respond = respond;
      for (const answer of held.splice(0)) answer();
    },
  };
}

/** The posts a worker logged as taken over by its sweeper, by whether their call had been sent. */
function takeoversLogged(w: RunningProcess): Array<{ postId: string; callSent: boolean }> {
  return w.output.join('').split('\n').flatMap((line) => {
    if (!line.includes('"msg":"abandoned publish taken over"')) return [];
    const entry = JSON.parse(line.slice(line.indexOf('{'))) as { post_id: string; call_sent: boolean };
    return [{ postId: entry.post_id, callSent: entry.call_sent }];
  });
}

interface AtKill {
  /** The database's clock right after the kill. */
  at: Date;
  /** Every post in `publishing` then, with its claim and when that claim's lease ends, in seconds after the kill. */
  posts: Array<{ id: string; claim_id: string; lease_ends: number }>;
}

async function publishingAtKill(db: pg.Pool, postIds: string[]): Promise<AtKill> {
  const { rows: [{ at }] } = await db.query<{ at: Date }>('SELECT clock_timestamp() AS at');
  const { rows } = await db.query<{ id: string; claim_id: string; lease_ends: string }>(
    `SELECT id, claim_id, extract(epoch FROM claimed_at + make_interval(secs => $3) - $2::timestamptz) AS lease_ends
       FROM scheduled_posts WHERE id = ANY($1) AND status = 'publishing'`,
    [postIds, at, LEASE_SECONDS],
  );
  return { at, posts: rows.map((r) => ({ ...r, lease_ends: Number(r.lease_ends) })) };
}

/**
 * Seconds from the kill until each post of `kill` is seen finished or under another claim (taken
 * over). Polled, so each time is at or after the real one: an upper bound.
 */
function movedOnAfterKill(db: pg.Pool, kill: AtKill, timeoutMs: number): Promise<Map<string, number>> {
  const claimAtKill = new Map(kill.posts.map((p) => [p.id, p.claim_id]));
  const moved = new Map<string, number>();
  return waitFor(async () => {
    const open = [...claimAtKill.keys()].filter((id) => !moved.has(id));
    const { rows } = await db.query<{ id: string; status: string; claim_id: string | null; after: string }>(
      `SELECT id, status, claim_id, extract(epoch FROM clock_timestamp() - $2::timestamptz) AS after FROM scheduled_posts WHERE id = ANY($1)`,
      [open, kill.at],
    );
    for (const r of rows) if (r.status !== 'publishing' || r.claim_id !== claimAtKill.get(r.id)) moved.set(r.id, Number(r.after));
    return moved.size === claimAtKill.size ? moved : undefined;
  }, timeoutMs, 'every post publishing at the kill to be finished or taken over');
}

/** Waits until none of the posts is pending or publishing; answers the final counts. */
function waitSettled(db: pg.Pool, postIds: string[], timeoutMs: number): Promise<Record<string, number>> {
  return waitFor(async () => {
    const counts = await statusCounts(db, postIds);
    return (counts.pending ?? 0) + (counts.publishing ?? 0) === 0 ? counts : undefined;
  }, timeoutMs, 'every post to leave pending and publishing');
}

/**
 * Compares the database with what the fake made public for one run: no caption posted twice,
 * each published post's remote id held by the fake exactly once (for that same caption), each
 * Pin at the fake accounted for by a published post or an `unconfirmed` one.
 */
function reconcileRun(fake: PinterestFake, run: string, rows: PostRow[]) {
  const pins = fake.posts.filter((p) => markerOf(p.text)?.startsWith(`${run}#`));
  const pinsByMarker = new Map<string, string[]>();
  for (const pin of pins) {
    const marker = markerOf(pin.text)!;
    pinsByMarker.set(marker, [...(pinsByMarker.get(marker) ?? []), pin.id]);
  }
  const duplicates = [...pinsByMarker.entries()].filter(([, ids]) => ids.length > 1);
  const pinById = new Map(pins.map((p) => [p.id, p]));
  const published = rows.filter((r) => r.status === 'published');
  const unconfirmed = rows.filter((r) => r.status === 'failed' && r.error_code === 'unconfirmed');
  const otherFailures = rows.filter((r) => r.status === 'failed' && r.error_code !== 'unconfirmed');
  const publishedMissingAtFake = published.filter((r) => {
    const pin = r.remote_post_id ? pinById.get(r.remote_post_id) : undefined;
    return !pin || markerOf(pin.text) !== markerOf(r.caption);
  });
  const unconfirmedMarkers = new Set(unconfirmed.map((r) => markerOf(r.caption)));
  const publishedRemoteIds = new Set(published.map((r) => r.remote_post_id));
  const unconfirmedHeld = pins.filter((p) => !publishedRemoteIds.has(p.id) && unconfirmedMarkers.has(markerOf(p.text)));
  const unaccounted = pins.filter((p) => !publishedRemoteIds.has(p.id) && !unconfirmedMarkers.has(markerOf(p.text)));
  return { pins, duplicates, published, unconfirmed, otherFailures, publishedMissingAtFake, unconfirmedHeld, unaccounted };
}

describe('publish dispatcher across two workers (PostgreSQL + Redis)', () => {
  let fake: PinterestFake;
  let backing: Backing;
  let server: TestServer;
  let workers: RunningProcess[] = [];
  let db: pg.Pool;
  let user: TestUser;
  let sourceItemId: string;
  let env: Record<string, string>;

  const published = (w: RunningProcess): boolean => w.output.join('').includes('"msg":"post published"');

  /** Connects Pinterest through the real flow: auth-url → the fake's consent (302) → our callback (302 back to the app). */
  const connectPinterest = async (): Promise<void> => {
    const authUrl = await api(server).get('/integrations/pinterest/auth-url').query({ redirect: '/settings/integrations' }).set(user.auth);
    expect(authUrl.status).toBe(200);
    expect(authUrl.body.url).toMatch(new RegExp(`^${fake.url}/oauth/\\?client_id=pinterest-client&`));
    const consent = await fetch(authUrl.body.url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location')!);
    expect(back.pathname).toBe('/api/v1/integrations/pinterest/callback');
    const callback = await api(server).get('/integrations/pinterest/callback').query({ code: back.searchParams.get('code'), state: back.searchParams.get('state') });
    expect(callback.status).toBe(302);
    expect(callback.headers.location).toMatch(/\/settings\/integrations\?connected=pinterest$/);
    const board = await api(server).patch('/integrations/pinterest/default-board').set(user.auth).send({ board_id: BOARD_ID });
    expect(board.status).toBe(200);
    expect(board.body.integration).toMatchObject({ platform: 'pinterest', connected: true, status: 'connected', mode: 'live', default_board_id: BOARD_ID });
  };

  /** One autopilot character, a few items generated through the API until approved; answers one item to copy. */
  const approvedItem = async (): Promise<string> => {
    const character = await api(server).post('/characters').set(user.auth).send({ name: 'Luna', niche: 'gardening', settings: { autopilot: true } });
    expect(character.status).toBe(201);
    const ids: string[] = [];
    for (const prompt of ['Tomatoes on a balcony', 'Herbs in the kitchen window', 'Repotting a fern']) {
      const res = await api(server).post('/content/generate').set(user.auth).send({ character_id: character.body.character.id, platform: 'pinterest', prompt });
      expect(res.status).toBe(201);
      ids.push(res.body.item.id);
    }
    const items = await Promise.all(ids.map((id) => waitFor(async () => {
      const res = await api(server).get(`/content/${id}`).set(user.auth);
      return res.body.item?.status === 'approved' ? res.body.item : undefined;
    }, 60_000, `item ${id} to be approved`)));
    expect(items[0]).toMatchObject({ content_type: 'single', media: [expect.objectContaining({ url: expect.stringMatching(/^https?:\/\//) })] });
    return items[0].id as string;
  };

  beforeAll(async () => {
    fake = await startPinterestFake();
    backing = await createBacking({ services: true });
    env = {
      ...platformEnv({ pinterest: fake }),
      // Works around the config bug shown by the first test (the trailing slash of /oauth/ is cut):
      // a trailing "?" keeps the path as the fake serves it.
      PINTEREST_AUTHORIZE_URL: `${fake.url}${PINTEREST_PATHS.authorizeUrl}?`,
      RUN_JOBS_IN_API: 'false',
      PUBLISH_LEASE_SECONDS: String(LEASE_SECONDS),
      PUBLISH_DISPATCH_INTERVAL_MS: '200',
      PUBLISH_CONCURRENCY: String(CONCURRENCY),
      PUBLISH_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_MULTIPLIER: '50',
    };
    server = await startServer(backing, env);
    // Info level: each worker logs the posts it published.
    workers = await Promise.all([startWorker(backing, { ...env, LOG_LEVEL: 'info' }), startWorker(backing, { ...env, LOG_LEVEL: 'info' })]);
    db = new pg.Pool({ connectionString: backing.env.DATABASE_URL, max: 4 });
    user = await registerUser(server);
    await connectPinterest();
    sourceItemId = await approvedItem();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([server?.stop(), ...workers.map((w) => w.stop())]);
    await db?.end();
    await fake?.close();
    await backing?.cleanup();
  });

  it('the configured Pinterest authorize endpoint keeps its path (/oauth/, as Pinterest serves it)', () => {
    const config = new AppConfig({ ...backing.env, ...platformEnv({ pinterest: fake }) });
    expect(config.publishing.platforms.pinterest?.authorizeUrl).toBe(`${fake.url}/oauth/`);
    // The built-in default is Pinterest's documented consent URL, slash included.
    const defaults = new AppConfig({ ...backing.env, PINTEREST_CLIENT_ID: 'id', PINTEREST_CLIENT_SECRET: 'secret' });
    expect(defaults.publishing.platforms.pinterest?.authorizeUrl).toBe('https://www.pinterest.com/oauth/');
  });

  it('two workers publish 500 due posts exactly once each, with no failure', async () => {
    const count = 500;
    const seeded = await seedDuePosts(db, sourceItemId, 'calm', count);
    const counts = await waitSettled(db, seeded.postIds, 60_000);
    const seconds = (Date.now() - seeded.committedAt) / 1000;
    const rows = await postRows(db, seeded.postIds);
    const r = reconcileRun(fake, 'calm', rows);
    console.log(`[publishing-dispatch] 500 posts, 2 workers: ${seconds.toFixed(1)} s, ${(count / seconds).toFixed(0)} posts/s, counts ${JSON.stringify(counts)}`);

    expect(counts).toEqual({ published: count });
    expect(r.pins).toHaveLength(count);
    expect(r.duplicates).toEqual([]);
    expect(r.publishedMissingAtFake).toEqual([]);
    expect(r.unaccounted).toEqual([]);
    expect(new Set(r.pins.map((p) => markerOf(p.text))).size).toBe(count);
    expect(r.pins.every((p) => p.boardId === BOARD_ID && p.accountId === 'lunagrows')).toBe(true);
    // Both processes did the work, not one of them alone.
    expect(workers.map(published)).toEqual([true, true]);
  }, 90_000);

  it('a send slower than the lease keeps its claim, and its success is recorded even though the content was rejected meanwhile', async () => {
    // One Pin that answers after 4 s: longer than the 3 s lease, within the call budget (CALL_TIMEOUT_MS).
    // The item is rejected while it is being sent.
    const respond = fake.respond.bind(fake);
    let answered = false;
    fake.respond = (res, status, body) => void setTimeout(() => { answered = true; respond(res, status, body); }, 4_000);
    const reconciliations = () => fake.requestsTo(`/v5/boards/${BOARD_ID}/pins`, 'GET').length;
    const before = reconciliations();
    try {
      const seeded = await seedDuePosts(db, sourceItemId, 'lease', 1);
      const [{ content_id: contentId, character_id: characterId }] = (await db.query<{ content_id: string; character_id: string }>(
        'SELECT content_id, character_id FROM scheduled_posts WHERE id = $1', [seeded.postIds[0]])).rows;
      await waitFor(async () => fake.posts.some((p) => markerOf(p.text) === 'lease#0'), 20_000, 'the Pin to be made');
      const rejected = await api(server).post(`/characters/${characterId}/content/${contentId}/reject`).set(user.auth).send({ reason: 'changed my mind' });
      expect(rejected.status).toBe(200);
      const counts = await waitSettled(db, seeded.postIds, 30_000);
      expect(answered).toBe(true);
      expect(counts).toEqual({ published: 1 });
      const [row] = await postRows(db, seeded.postIds);
      expect(row.remote_post_id).toBe(fake.posts.find((p) => markerOf(p.text) === 'lease#0')!.id);
      // Nobody took the claim over: no reconciliation was needed.
      expect(reconciliations()).toBe(before);
      const item = await api(server).get(`/content/${contentId}`).set(user.auth);
      expect(item.body.item.status).toBe('rejected');
    } finally {
      fake.respond = respond;
    }
  }, 60_000);

  it('a lost reply the platform does not show yet is checked again after the lease: published once, never sent twice', async () => {
    const lists = () => fake.requestsTo(`/v5/boards/${BOARD_ID}/pins`, 'GET').length;
    const before = lists();
    fake.listingDelayMs = 2_000;
    fake.setMode({ kind: 'lose_reply', times: 1 });
    try {
      const seeded = await seedDuePosts(db, sourceItemId, 'late', 1);
      // The first check (right after the lost reply) cannot see the Pin yet: the post stays in publishing.
      await waitFor(async () => lists() > before, 20_000, 'the first reconciliation');
      expect(await statusCounts(db, seeded.postIds)).toEqual({ publishing: 1 });
      const counts = await waitSettled(db, seeded.postIds, 30_000);
      expect(counts).toEqual({ published: 1 });
      const pins = fake.posts.filter((p) => markerOf(p.text) === 'late#0');
      expect(pins).toHaveLength(1);
      expect((await postRows(db, seeded.postIds))[0].remote_post_id).toBe(pins[0].id);
      expect(lists() - before).toBeGreaterThanOrEqual(2);
    } finally {
      fake.listingDelayMs = 0;
      fake.setMode({ kind: 'ok' });
    }
  }, 60_000);

  it('calls a slow platform holds longer than the lease are not taken over from the live workers, through a sweep that reads them', async () => {
    const count = 400;
    const reconciliations = () => fake.requestsTo(`/v5/boards/${BOARD_ID}/pins`, 'GET').length;
    const before = reconciliations();
    const gate = holdAnswers(fake);
    let seeded: Seeded;
    let probe: { postId: string; claimId: string };
    let held: InFlight[];
    let heldSeconds: number;
    try {
      seeded = await seedDuePosts(db, sourceItemId, 'slow', count);
      // Every slot of both workers on a call Pinterest has not answered; nothing more can be sent.
      held = await waitFor(async () => {
        const rows = await inFlightCalls(db, seeded.postIds);
        return rows.length === 2 * CONCURRENCY && gate.count() === 2 * CONCURRENCY ? rows : undefined;
      }, 30_000, 'every slot of both workers to hold an unanswered call');
      const heldIds = held.map((p) => p.id);
      // Every held call outlives the lease, by the database's clock (the one the sweeper reads).
      await waitFor(async () => {
        const { rows: [r] } = await db.query<{ lapsed: boolean }>(
          `SELECT bool_and(call_started_at < now() - make_interval(secs => $2)) AS lapsed FROM scheduled_posts WHERE id = ANY($1)`,
          [heldIds, LEASE_SECONDS],
        );
        return r.lapsed;
      }, 10_000, 'the held calls to outlive the lease');
      // A sweep after that point that reads them: it takes over a post planted as abandoned, claimed after every held call was sent.
      probe = await plantAbandonedPost(db, sourceItemId, `slow#${count}`, heldIds);
      await waitFor(async () => {
        const { rows: [p] } = await db.query<{ status: string; claim_id: string | null }>('SELECT status, claim_id FROM scheduled_posts WHERE id = $1', [probe.postId]);
        return p.status !== 'publishing' || p.claim_id !== probe.claimId;
      }, 10_000, 'a sweep to take over the planted abandoned post');
      heldSeconds = gate.heldMs() / 1000;
      // Pinterest has answered none of the calls (so none ended on its own, by an answer or a timeout)...
      expect(gate.count()).toBe(2 * CONCURRENCY);
      expect(gate.heldMs()).toBeLessThan(CALL_TIMEOUT_MS);
      // ...and each is still in flight under the claim it was sent with: that sweep left them to their live workers.
      expect(await inFlightCalls(db, heldIds)).toEqual(held);
    } finally {
      gate.release();
    }
    const postIds = [...seeded.postIds, probe.postId];
    const counts = await waitSettled(db, postIds, 60_000);
    const seconds = (Date.now() - seeded.committedAt) / 1000;
    const r = reconcileRun(fake, 'slow', await postRows(db, postIds));
    const takenOver = reconciliations() - before;
    const ours = new Set(postIds);
    const takeovers = workers.flatMap(takeoversLogged).filter((t) => ours.has(t.postId));
    console.log(
      `[publishing-dispatch] ${count} posts + 1 planted abandoned, ${2 * CONCURRENCY} calls held ${heldSeconds.toFixed(1)} s (lease ${LEASE_SECONDS} s): ` +
        `${seconds.toFixed(1)} s overall, counts ${JSON.stringify(counts)}, in-flight posts taken over and reconciled: ${takenOver}, ` +
        `unsent claims taken over and queued again: ${takeovers.filter((t) => !t.callSent).length}`,
    );

    expect(r.duplicates).toEqual([]);
    expect(r.publishedMissingAtFake).toEqual([]);
    expect(r.unaccounted).toEqual([]);
    expect(counts).toEqual({ published: count + 1 });
    // No worker died: no attempt may be taken over while its call is in flight (each takeover asks the board for its Pins).
    expect(takenOver).toBe(0);
    expect(takeovers.filter((t) => t.callSent)).toEqual([]);
    // The planted post was taken over by a sweep, as the workers say too.
    expect(takeovers).toContainEqual({ postId: probe.postId, callSent: false });
  }, 120_000);

  it('a worker killed mid-run and started again posts nothing twice and leaves no post in publishing (2,000 posts)', async () => {
    const count = 2000;
    const seeded = await seedDuePosts(db, sourceItemId, 'crash', count);

    let mostInPublishing = 0;
    const atKill = await waitFor(async () => {
      const counts = await statusCounts(db, seeded.postIds);
      mostInPublishing = Math.max(mostInPublishing, counts.publishing ?? 0);
      return (counts.published ?? 0) >= count * 0.3 ? counts : undefined;
    }, 60_000, '30% of the posts to be published');
    // Backpressure: at most two batches (2 × 100) queued, plus one batch the other dispatcher may claim on the same
    // reading of the queue, plus what the workers are sending. Without it all 2,000 would be claimed at once.
    expect(mostInPublishing).toBeLessThanOrEqual(3 * 100 + 2 * CONCURRENCY);
    await workers[0].stop('SIGKILL');
    const killedAt = Date.now();
    // The killed worker's attempts are among these: it holds nothing else any more.
    const kill = await publishingAtKill(db, seeded.postIds);
    const movingOn = movedOnAfterKill(db, kill, 120_000);
    movingOn.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    workers[0] = await startWorker(backing, { ...env, LOG_LEVEL: 'info' });
    const restartSeconds = (Date.now() - killedAt) / 1000;

    const counts = await waitSettled(db, seeded.postIds, 120_000);
    const movedOn = await movingOn;
    const seconds = (Date.now() - seeded.committedAt) / 1000;
    const rows = await postRows(db, seeded.postIds);
    const r = reconcileRun(fake, 'crash', rows);
    // Each post publishing at the kill becomes eligible for a sweep by the end of the lease; the live
    // worker sweeps every SWEEP_EVERY_SECONDS, oldest claims first, at most SWEEP_BATCH a sweep.
    const bound = LEASE_SECONDS + SWEEP_EVERY_SECONDS * Math.ceil(Math.max(1, kill.posts.length) / SWEEP_BATCH) + TAKEOVER_MARGIN_SECONDS;
    const delays = kill.posts.map((p) => ({ id: p.id, after: movedOn.get(p.id)!, leaseEnds: p.lease_ends }));
    // Posts nobody moved until their lease ran out: what the killed worker held (and what waited queued as long).
    const leftBehind = delays.filter((d) => d.after >= d.leaseEnds);
    const slowest = Math.max(0, ...delays.map((d) => d.after));
    console.log(
      `[publishing-dispatch] 2000 posts, kill at ${atKill.published} published (${JSON.stringify(atKill)}), restart took ${restartSeconds.toFixed(1)} s; ` +
        `${seconds.toFixed(1)} s overall, ${(count / seconds).toFixed(0)} posts/s; final ${JSON.stringify(counts)}; ` +
        `pins at the fake ${r.pins.length}, unconfirmed ${r.unconfirmed.length} (held by the fake: ${r.unconfirmedHeld.length}); ` +
        `${kill.posts.length} publishing at the kill, ${leftBehind.length} left until their lease ran out; the last moved on ${slowest.toFixed(1)} s after the kill (bound ${bound} s)`,
    );

    // The kill really came in the middle of the run.
    expect(atKill.published).toBeLessThan(count);
    expect(counts.publishing ?? 0).toBe(0);
    expect(counts.pending ?? 0).toBe(0);
    // Never twice at the platform.
    expect(r.duplicates).toEqual([]);
    // Every post recorded as published is at the platform, under its own caption, exactly once.
    expect(r.publishedMissingAtFake).toEqual([]);
    // Every Pin at the platform is a published post, or an unconfirmed one (its reply lost with the worker).
    expect(r.unaccounted).toEqual([]);
    expect(r.pins.length).toBe(r.published.length + r.unconfirmedHeld.length);
    // No failure other than the few attempts in flight in the killed worker.
    expect(r.otherFailures.map((p) => `${p.id}:${p.error_code}`)).toEqual([]);
    expect(r.published.length + r.unconfirmed.length).toBe(count);
    expect(r.unconfirmed.length).toBeLessThanOrEqual(CONCURRENCY);
    // The killed worker's posts are taken over after the lease and the sweeps it takes, not left until Bull
    // notices its stalled jobs (30 s) or forever (a sent call is never run again from its message).
    expect(leftBehind.length).toBeGreaterThan(0);
    expect(delays.filter((d) => d.after > bound)).toEqual([]);
  }, 240_000);
});
