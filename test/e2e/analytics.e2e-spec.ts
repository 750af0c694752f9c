import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, connectSandbox, grantCredits, loginAdmin, missingId, registerUser, setPlan, type TestUser } from '../helpers/api.js';
import { inviteAndAccept } from '../helpers/invitations.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

/**
 * Analytics (contract §15): the routes' validation, access and throttle, and a sandbox
 * connection's simulated numbers arriving through an on-demand sync.
 * The five platform fakes' served numbers, a 429 from a fake's metric calls, two workers' scheduled
 * syncs and the slot planner's best hours are in analytics-platforms.e2e-spec.ts.
 */
type Body = Record<string, any>;

describe('analytics (contract §15)', () => {
  let backing: Backing;
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let character: string;
  let viewer: { Authorization: string };

  const get = (auth: { Authorization: string }, path: string) => api(server).get(path).set(auth);

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', RUN_JOBS_IN_API: 'true' });
    const admin = await loginAdmin(server);
    alice = await registerUser(server);
    bob = await registerUser(server);
    await setPlan(server, admin, alice.workspace.id, 'agency');
    await grantCredits(server, admin, alice.workspace.id, 500);
    const created = await api(server).post('/characters').set(alice.auth).send({ name: 'Studio', niche: 'fashion', settings: { autopilot: true } });
    expect(created.status).toBe(201);
    character = created.body.character.id as string;
    const member = await registerUser(server);
    await inviteAndAccept(server, alice.auth, alice.workspace.id, member, 'viewer');
    const sw = await api(server).post('/auth/switch-workspace').set(member.auth).send({ workspace_id: alice.workspace.id });
    expect(sw.status).toBe(200);
    viewer = { Authorization: `Bearer ${sw.body.access_token}` };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it.each([
    ['to before from', 'from=2025-02-02&to=2025-02-01'],
    ['a span of 367 days', 'from=2024-01-01&to=2025-01-01'],
    ['a date that does not exist', 'from=2025-02-30'],
    ['a date in another format', 'to=01/02/2025'],
  ])('refuses %s with 400', async (_what, query) => {
    for (const path of ['/analytics/overview', '/analytics/posts']) {
      const res = await get(alice.auth, `${path}?${query}`);
      expect([path, res.status, res.body.code]).toEqual([path, 400, 'validation_failed']);
    }
  });

  it('answers 404 for another workspace’s character and for an unknown one', async () => {
    for (const id of [character, missingId('char'), 'nope']) {
      for (const path of ['/analytics/overview', '/analytics/posts']) {
        const res = await get(bob.auth, `${path}?character_id=${id}`);
        expect([path, id, res.status, res.body.code]).toEqual([path, id, 404, 'not_found']);
      }
    }
  });

  it('lets a viewer read, answering the contract’s shapes (empty before any sync)', async () => {
    const overview = await get(viewer, `/analytics/overview?character_id=${character}&from=2025-01-01&to=2025-01-31`);
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({ from: '2025-01-01', to: '2025-01-31', followers: [], top_posts: [], by_platform: [], simulated: false });
    expect(overview.body.totals).toMatchObject({ posts: 0, likes: null, engagement_rate: null });
    const posts = await get(viewer, '/analytics/posts?sort=-engagement_rate&page=1&page_size=10');
    expect(posts.status).toBe(200);
    expect(posts.body).toEqual({ posts: [], page: 1, page_size: 10, total: 0 });
    const refused = await api(server).post('/analytics/sync').set(viewer);
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_role']);
  });

  it('refuses an unknown sort with 400', async () => {
    const res = await get(alice.auth, '/analytics/posts?sort=shares');
    expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
  });

  it('refuses API keys with 401', async () => {
    const key = await api(server).post('/api-keys').set(alice.auth).send({ name: 'analytics', scopes: ['content:read'] });
    expect(key.status).toBe(201);
    const auth = { Authorization: `Bearer ${key.body.key as string}` };
    for (const res of [await get(auth, '/analytics/overview'), await get(auth, '/analytics/posts'), await api(server).post('/analytics/sync').set(auth)]) {
      expect(res.status).toBe(401);
    }
  });

  it('syncs a sandbox connection on demand into simulated numbers, then throttles the next sync with 429 and Retry-After', async () => {
    await connectSandbox(server, alice, 'instagram');
    const generated = await api(server).post('/content/generate').set(alice.auth).send({ character_id: character, platform: 'instagram', prompt: 'Linen suit at golden hour' });
    expect(generated.status).toBe(201);
    const itemId = generated.body.item.id as string;
    await waitFor(async () => (await get(alice.auth, `/content/${itemId}`)).body.item?.status === 'approved', 60_000, 'the item to be approved');
    const scheduled = await api(server).post(`/content/${itemId}/schedule`).set(alice.auth).send({ scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(201);
    const postId = scheduled.body.scheduled_posts[0].id as string;
    expect((await api(server).post(`/schedule/${postId}/publish-now`).set(alice.auth)).status).toBe(200);

    const sync = await api(server).post('/analytics/sync').set(alice.auth);
    expect(sync.status).toBe(202);
    expect(sync.body.job).toMatchObject({ job_type: 'sync_analytics' });
    const jobId = sync.body.job.id as string;
    const job = await waitFor(async () => {
      const j = (await get(alice.auth, `/jobs/${jobId}`)).body.job as Body | undefined;
      return j && ['completed', 'failed'].includes(j.status as string) ? j : undefined;
    }, 30_000, 'the sync job to end');
    expect(job.status).toBe('completed');

    const posts = await get(viewer, `/analytics/posts?character_id=${character}`);
    expect(posts.status).toBe(200);
    expect(posts.body.total).toBe(1);
    const [post] = posts.body.posts as Body[];
    expect(post).toMatchObject({ scheduled_post_id: postId, content_id: itemId, platform: 'instagram', simulated: true });
    expect(Object.keys(post.metrics as Body).sort()).toEqual(['comments', 'impressions', 'likes', 'saves', 'shares', 'views']);
    const overview = await get(viewer, `/analytics/overview?character_id=${character}`);
    expect(overview.body).toMatchObject({ simulated: true, totals: { posts: 1 } });
    expect(overview.body.top_posts[0]).toMatchObject({ scheduled_post_id: postId });
    expect(overview.body.synced_at).toEqual(expect.any(String));
    // The character's follower count is the synced account's followers.
    const followers = (overview.body.followers as Body[]).filter((f) => f.platform === 'instagram');
    const char = await get(alice.auth, `/characters/${character}`);
    expect(char.body.character.follower_count).toBe(followers.at(-1)?.count ?? 0);

    const again = await api(server).post('/analytics/sync').set(alice.auth);
    expect([again.status, again.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(500);
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(600);
  }, 120_000);
});
