import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { api, loginAdmin, missingId, registerUser, setPlan, uniqueEmail, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

type Auth = { Authorization: string };
const PASSWORD = 'correct-horse-battery';

function requestId(tag: string): string {
  return `e2e-${tag}-${randomBytes(6).toString('hex')}`;
}

async function switchTo(server: TestServer, auth: Auth, workspaceId: string): Promise<Auth> {
  const res = await api(server).post('/auth/switch-workspace').set(auth).send({ workspace_id: workspaceId });
  if (res.status !== 200) throw new Error(`switch failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { Authorization: `Bearer ${res.body.access_token}` };
}

async function add(server: TestServer, auth: Auth, wsId: string, body: Record<string, unknown>, reqId?: string) {
  const req = api(server).post(`/organizations/${wsId}/members`).set(auth);
  if (reqId) req.set('X-Request-Id', reqId);
  return req.send(body);
}

async function auditEntries(server: TestServer, auth: Auth, wsId: string, query: Record<string, string | number> = {}) {
  const res = await api(server).get(`/organizations/${wsId}/audit-log`).set(auth).query({ limit: 200, ...query });
  if (res.status !== 200) throw new Error(`audit-log failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.entries as Array<Record<string, any>>;
}

describe('organisations, members and invitations (contract §14)', () => {
  let backing: Backing;
  let server: TestServer;
  let admin: Auth;
  let owner: TestUser;
  let ws: string;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
    admin = await loginAdmin(server);
    owner = await registerUser(server);
    ws = owner.workspace.id;
    await setPlan(server, admin, ws, 'agency');
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('lists your workspaces with your role, creates one with you as owner, and reads it', async () => {
    const list = await api(server).get('/organizations').set(owner.auth);
    expect(list.status).toBe(200);
    expect(list.body.organizations).toEqual([expect.objectContaining({ id: ws, role: 'owner', plan: 'agency', slug: null })]);
    expect(list.body).toMatchObject({ page: 1, page_size: 20, total: 1 });

    const created = await api(server).post('/organizations').set(owner.auth).send({ name: '  Side project ' });
    expect(created.status).toBe(201);
    expect(created.body.organization).toMatchObject({ name: 'Side project', role: 'owner', plan: 'starter' });
    const id = created.body.organization.id as string;
    expect((await api(server).get(`/organizations/${id}`).set(owner.auth)).body.organization.id).toBe(id);
    expect((await api(server).get('/organizations').set(owner.auth)).body.organizations.map((o: { id: string }) => o.id)).toEqual([ws, id]);
    const second = await api(server).get('/organizations?page=2&page_size=1').set(owner.auth);
    expect(second.body).toMatchObject({ organizations: [expect.objectContaining({ id })], page: 2, page_size: 1, total: 2 });
    const audit = await auditEntries(server, await switchTo(server, owner.auth, id), id, { action: 'workspace.created' });
    expect(audit).toEqual([expect.objectContaining({ actor_user_id: owner.user.id, target_id: id })]);
  });

  it('answers 404 for a workspace you are not in, a missing one, or a malformed id, on every route', async () => {
    const stranger = await registerUser(server);
    const paths = [`/organizations/${ws}`, `/organizations/${ws}/members`, `/organizations/${ws}/audit-log`];
    for (const p of paths) expect((await api(server).get(p).set(stranger.auth)).status).toBe(404);
    expect((await api(server).put(`/organizations/${ws}`).set(stranger.auth).send({ name: 'x' })).status).toBe(404);
    expect((await add(server, stranger.auth, ws, { email: uniqueEmail(), role: 'viewer' })).status).toBe(404);
    expect((await api(server).put(`/organizations/${ws}/members/${owner.user.id}`).set(stranger.auth).send({ role: 'viewer' })).status).toBe(404);
    expect((await api(server).delete(`/organizations/${ws}/members/${owner.user.id}`).set(stranger.auth)).status).toBe(404);
    expect((await api(server).get(`/organizations/${missingId('ws')}`).set(owner.auth)).status).toBe(404);
    expect((await api(server).get('/organizations/char_01ARZ3NDEKTSV4RRFFQ69G5FAV').set(owner.auth)).status).toBe(404);
    const sw = await api(server).post('/auth/switch-workspace').set(stranger.auth).send({ workspace_id: ws });
    expect(sw.status).toBe(404);
  });

  it('updates name and slug (admin+), refuses a taken or malformed slug and unknown fields', async () => {
    const slug = `acme-${randomBytes(4).toString('hex')}`;
    const res = await api(server).put(`/organizations/${ws}`).set(owner.auth).set('X-Request-Id', requestId('upd')).send({ name: 'Acme', slug });
    expect(res.status).toBe(200);
    expect(res.body.organization).toMatchObject({ name: 'Acme', slug });

    const other = await registerUser(server);
    const taken = await api(server).put(`/organizations/${other.workspace.id}`).set(other.auth).send({ slug });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('slug_taken');
    for (const bad of ['AB', 'has space', 'x'.repeat(41)]) {
      expect((await api(server).put(`/organizations/${ws}`).set(owner.auth).send({ slug: bad })).status).toBe(400);
    }
    const branded = await api(server).put(`/organizations/${ws}`).set(owner.auth).send({ branding: { primary_color: '#000000', display_name: 'Acme' } });
    expect(branded.status).toBe(200);
    expect(branded.body.branding).toMatchObject({ primary_color: '#000000', display_name: 'Acme' });
    expect((await api(server).put(`/organizations/${ws}`).set(owner.auth).send({ branding: { primary_color: 'black' } })).status).toBe(400);
    const updates = await auditEntries(server, owner.auth, ws, { action: 'workspace.updated' });
    expect(updates).toHaveLength(1);
  });

  it('takes a slug on create under the rules of PUT: 409 slug_taken when held, 400 when malformed', async () => {
    const maker = await registerUser(server);
    const slug = `side-${randomBytes(4).toString('hex')}`;
    const created = await api(server).post('/organizations').set(maker.auth).send({ name: 'Side', slug });
    expect([created.status, created.body.organization?.slug]).toEqual([201, slug]);
    const read = await api(server).get(`/organizations/${created.body.organization.id}`).set(maker.auth);
    expect(read.body.organization.slug).toBe(slug);
    const taken = await api(server).post('/organizations').set(maker.auth).send({ name: 'Other', slug });
    expect([taken.status, taken.body.code]).toEqual([409, 'slug_taken']);
    for (const bad of ['AB', 'has space', 'x'.repeat(41), null]) {
      const res = await api(server).post('/organizations').set(maker.auth).send({ name: 'Bad', slug: bad });
      expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'validation_failed']);
    }
    // Only the one workspace with the slug was made, besides the signup workspace.
    expect((await api(server).get('/organizations').set(maker.auth)).body.total).toBe(2);
  });

  it('adds an existing user at once (by email or id), refuses duplicates, and invites an unknown email with a one-time token', async () => {
    const ed = await registerUser(server);
    const byEmail = await add(server, owner.auth, ws, { email: ed.user.email.toUpperCase(), role: 'editor' });
    expect(byEmail.status).toBe(201);
    expect(byEmail.body.member).toMatchObject({ user_id: ed.user.id, email: ed.user.email, role: 'editor', joined_at: expect.any(String) });
    const dup = await add(server, owner.auth, ws, { user_id: ed.user.id, role: 'viewer' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('member_exists');

    const viewer = await registerUser(server);
    expect((await add(server, owner.auth, ws, { user_id: viewer.user.id, role: 'viewer' })).status).toBe(201);
    expect((await add(server, owner.auth, ws, { user_id: missingId('user'), role: 'viewer' })).status).toBe(404);
    expect((await add(server, owner.auth, ws, { role: 'viewer' })).status).toBe(400);
    expect((await add(server, owner.auth, ws, { email: uniqueEmail(), user_id: viewer.user.id, role: 'viewer' })).status).toBe(400);
    expect((await add(server, owner.auth, ws, { email: uniqueEmail(), role: 'boss' })).status).toBe(400);

    const email = uniqueEmail('invitee');
    const inv = await add(server, owner.auth, ws, { email, role: 'editor' });
    expect(inv.status).toBe(201);
    expect(inv.body.invitation).toMatchObject({ id: expect.stringMatching(/^inv_/), email, role: 'editor', token: expect.stringMatching(/^pinv_/) });
    expect((await add(server, owner.auth, ws, { email, role: 'viewer' })).body.code).toBe('member_exists');

    const asOwner = await api(server).get(`/organizations/${ws}/members`).set(owner.auth);
    expect(asOwner.body.invitations).toEqual([{ id: inv.body.invitation.id, email, role: 'editor', expires_at: inv.body.invitation.expires_at }]);
    expect(JSON.stringify(asOwner.body)).not.toContain(inv.body.invitation.token);
    const asViewer = await api(server).get(`/organizations/${ws}/members`).set(await switchTo(server, viewer.auth, ws));
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.members.map((m: { user_id: string }) => m.user_id)).toEqual(expect.arrayContaining([owner.user.id, ed.user.id, viewer.user.id]));
    expect(asViewer.body.invitations).toBeUndefined();
  });

  it('only an owner manages members: an admin is refused with insufficient_role', async () => {
    const adm = await registerUser(server);
    await add(server, owner.auth, ws, { user_id: adm.user.id, role: 'admin' });
    const auth = await switchTo(server, adm.auth, ws);
    const refused = await add(server, auth, ws, { email: uniqueEmail(), role: 'viewer' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_role', details: { required: 'owner' } });
    expect((await api(server).put(`/organizations/${ws}/members/${owner.user.id}`).set(auth).send({ role: 'viewer' })).body.code).toBe('insufficient_role');
    expect((await api(server).delete(`/organizations/${ws}/members/${owner.user.id}`).set(auth)).body.code).toBe('insufficient_role');
  });

  it('limits members per plan, pending invitations included: starter 1, pro 3', async () => {
    const starter = await registerUser(server);
    const full = await add(server, starter.auth, starter.workspace.id, { email: uniqueEmail(), role: 'viewer' });
    expect(full.status).toBe(403);
    expect(full.body).toMatchObject({ code: 'member_limit_reached', details: { limit: 1 } });

    const pro = await registerUser(server);
    await setPlan(server, admin, pro.workspace.id, 'pro');
    const member = await registerUser(server);
    expect((await add(server, pro.auth, pro.workspace.id, { user_id: member.user.id, role: 'viewer' })).status).toBe(201);
    expect((await add(server, pro.auth, pro.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
    const third = await add(server, pro.auth, pro.workspace.id, { email: uniqueEmail(), role: 'viewer' });
    expect(third.body.code).toBe('member_limit_reached');
    expect(await auditEntries(server, pro.auth, pro.workspace.id, { action: 'member.invited' })).toHaveLength(1);
  });

  it('an invitation is accepted once, by the user with its email; registering with a token joins too', async () => {
    const email = uniqueEmail('accept');
    const token = (await add(server, owner.auth, ws, { email, role: 'viewer' })).body.invitation.token as string;
    const wrong = await registerUser(server);
    const mismatch = await api(server).post(`/invitations/${token}/accept`).set(wrong.auth);
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.code).toBe('invitation_email_mismatch');

    const invitee = await registerUser(server, { email: email.toUpperCase() });
    const accepted = await api(server).post(`/invitations/${token}/accept`).set(invitee.auth).set('X-Request-Id', requestId('acc'));
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization).toMatchObject({ id: ws, role: 'viewer' });
    expect((await api(server).post(`/invitations/${token}/accept`).set(invitee.auth)).status).toBe(404);
    expect((await api(server).post('/invitations/pinv_nonsense/accept').set(invitee.auth)).status).toBe(404);

    const email2 = uniqueEmail('register');
    const token2 = (await add(server, owner.auth, ws, { email: email2, role: 'editor' })).body.invitation.token as string;
    const joined = await registerUser(server, { email: email2, invitation_token: token2 });
    const me = await api(server).get('/auth/me').set(joined.auth);
    expect(me.body.workspaces).toEqual(expect.arrayContaining([expect.objectContaining({ id: ws, role: 'editor' })]));

    const email3 = uniqueEmail('reuse');
    const reused = await api(server).post('/auth/register').send({ email: email3, password: PASSWORD, accept_terms: true, accept_privacy: true, invitation_token: token2 });
    expect(reused.status).toBe(404);
    expect((await api(server).post('/auth/login').send({ email: email3, password: PASSWORD })).status).toBe(401);
    const accepts = await auditEntries(server, owner.auth, ws, { action: 'invitation.accepted' });
    expect(accepts.filter((e) => e.target_type === 'invitation')).toHaveLength(2);
  });

  it('changes roles, keeps the last owner (409 last_owner), lets a member leave, and a removed member is refused', async () => {
    const o = await registerUser(server);
    const wsId = o.workspace.id;
    await setPlan(server, admin, wsId, 'agency');
    const lastDemote = await api(server).put(`/organizations/${wsId}/members/${o.user.id}`).set(o.auth).send({ role: 'admin' });
    expect(lastDemote.status).toBe(409);
    expect(lastDemote.body.code).toBe('last_owner');
    expect((await api(server).delete(`/organizations/${wsId}/members/${o.user.id}`).set(o.auth)).body.code).toBe('last_owner');

    const m = await registerUser(server);
    await add(server, o.auth, wsId, { user_id: m.user.id, role: 'viewer' });
    const promoted = await api(server).put(`/organizations/${wsId}/members/${m.user.id}`).set(o.auth).send({ role: 'editor' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.member).toMatchObject({ user_id: m.user.id, role: 'editor' });
    expect((await api(server).put(`/organizations/${wsId}/members/${missingId('user')}`).set(o.auth).send({ role: 'editor' })).status).toBe(404);

    const mAuth = await switchTo(server, m.auth, wsId);
    expect((await api(server).get('/characters').set(mAuth)).status).toBe(200);
    expect((await api(server).delete(`/organizations/${wsId}/members/${m.user.id}`).set(o.auth)).status).toBe(204);
    await waitFor(async () => (await api(server).get('/characters').set(mAuth)).status === 401, 10_000, 'removed member refused');
    expect((await api(server).get(`/organizations/${wsId}`).set(m.auth)).status).toBe(404);

    const leaver = await registerUser(server);
    await add(server, o.auth, wsId, { user_id: leaver.user.id, role: 'viewer' });
    expect((await api(server).delete(`/organizations/${wsId}/members/${leaver.user.id}`).set(leaver.auth)).status).toBe(204);
    const removed = await auditEntries(server, o.auth, wsId, { action: 'member.removed' });
    expect(removed.map((e) => [e.target_id, e.details.left])).toEqual([[leaver.user.id, true], [m.user.id, false]]);
  });

  /** A fresh agency workspace with two owners, the second signed in to it. */
  async function twoOwners() {
    const a = await registerUser(server);
    const b = await registerUser(server);
    const wsId = a.workspace.id;
    await setPlan(server, admin, wsId, 'agency');
    await add(server, a.auth, wsId, { user_id: b.user.id, role: 'owner' });
    return { a, b, wsId, bAuth: await switchTo(server, b.auth, wsId) };
  }

  it('of two owners stepping down at once, one wins and the other gets last_owner', async () => {
    const { a, b, wsId, bAuth } = await twoOwners();
    const [ra, rb] = await Promise.all([
      api(server).put(`/organizations/${wsId}/members/${a.user.id}`).set(a.auth).send({ role: 'admin' }),
      api(server).put(`/organizations/${wsId}/members/${b.user.id}`).set(bAuth).send({ role: 'admin' }),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    expect([ra.body.code, rb.body.code]).toContain('last_owner');
    const members = (await api(server).get(`/organizations/${wsId}/members`).set(a.auth)).body.members as Array<{ role: string }>;
    expect(members.filter((mm) => mm.role === 'owner')).toHaveLength(1);
  });

  it('of two owners demoting each other at once, one wins; the loser is no owner any more and is refused', async () => {
    const { a, b, wsId, bAuth } = await twoOwners();
    const answers = await Promise.all([
      api(server).put(`/organizations/${wsId}/members/${b.user.id}`).set(a.auth).send({ role: 'admin' }),
      api(server).put(`/organizations/${wsId}/members/${a.user.id}`).set(bAuth).send({ role: 'admin' }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 403]);
    const members = (await api(server).get(`/organizations/${wsId}/members`).set(a.auth)).body.members as Array<{ role: string }>;
    expect(members.filter((mm) => mm.role === 'owner')).toHaveLength(1);
  });

  it('signs a member removed from their own workspace in to another of theirs, and refuses one with none left', async () => {
    const u = await registerUser(server);
    const other = await registerUser(server);
    await setPlan(server, admin, u.workspace.id, 'pro');
    await setPlan(server, admin, other.workspace.id, 'pro');
    // u makes `other` an owner of u's workspace; `other` removes u from it.
    expect((await add(server, u.auth, u.workspace.id, { user_id: other.user.id, role: 'owner' })).status).toBe(201);
    const asOther = await switchTo(server, other.auth, u.workspace.id);
    expect((await api(server).delete(`/organizations/${u.workspace.id}/members/${u.user.id}`).set(asOther)).status).toBe(204);
    const refused = await api(server).post('/auth/login').send({ email: u.user.email, password: PASSWORD });
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
    // Back as a viewer of `other`'s workspace: a sign-in lands there.
    expect((await add(server, other.auth, other.workspace.id, { user_id: u.user.id, role: 'viewer' })).status).toBe(201);
    const login = await api(server).post('/auth/login').send({ email: u.user.email, password: PASSWORD });
    expect(login.status).toBe(200);
    const me = await api(server).get('/auth/me').set({ Authorization: `Bearer ${login.body.access_token}` });
    expect(me.body).toMatchObject({ workspace: { id: other.workspace.id }, workspace_role: 'viewer', workspaces: [{ id: other.workspace.id, role: 'viewer' }] });
  });

  it('writes exactly one audit entry per action, with actor and request id, and none for a failed action', async () => {
    const o = await registerUser(server);
    const wsId = o.workspace.id;
    await setPlan(server, admin, wsId, 'agency');
    const m = await registerUser(server);
    const ids = { add: requestId('add'), role: requestId('role'), fail: requestId('fail'), remove: requestId('rm') };
    expect((await add(server, o.auth, wsId, { user_id: m.user.id, role: 'viewer' }, ids.add)).status).toBe(201);
    expect((await add(server, o.auth, wsId, { user_id: m.user.id, role: 'viewer' }, ids.fail)).status).toBe(409);
    const demote = api(server).put(`/organizations/${wsId}/members/${o.user.id}`).set(o.auth).set('X-Request-Id', ids.fail).send({ role: 'viewer' });
    expect((await demote).status).toBe(409);
    await api(server).put(`/organizations/${wsId}/members/${m.user.id}`).set(o.auth).set('X-Request-Id', ids.role).send({ role: 'editor' }).expect(200);
    await api(server).delete(`/organizations/${wsId}/members/${m.user.id}`).set(o.auth).set('X-Request-Id', ids.remove).expect(204);

    const entries = await auditEntries(server, o.auth, wsId);
    const byRequest = (id: string) => entries.filter((e) => e.request_id === id);
    expect(byRequest(ids.fail)).toEqual([]);
    expect(byRequest(ids.add)).toEqual([expect.objectContaining({ action: 'member.added', actor_user_id: o.user.id, actor_email: o.user.email, target_type: 'user', target_id: m.user.id, details: { role: 'viewer' } })]);
    expect(byRequest(ids.role)).toEqual([expect.objectContaining({ action: 'member.role_changed', details: { from: 'viewer', to: 'editor' } })]);
    expect(byRequest(ids.remove)).toEqual([expect.objectContaining({ action: 'member.removed', target_id: m.user.id })]);
    expect(entries[0].created_at).toMatch(/Z$/);

    const page1 = await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ limit: 2 });
    expect(page1.body.entries).toHaveLength(2);
    expect(page1.body.next_before).toBe(page1.body.entries[1].id);
    const page2 = await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ limit: 2, before: page1.body.next_before });
    expect(page2.body.entries.map((e: { id: string }) => e.id)).toEqual(entries.slice(2, 4).map((e) => e.id));
    expect((await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ actor_id: m.user.id })).body.entries).toEqual([]);
    expect((await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ limit: 201 })).status).toBe(400);
    expect((await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ action: 'nope' })).status).toBe(400);
  });

  it('the audit log is for admins and owners only', async () => {
    const ed = await registerUser(server);
    await add(server, owner.auth, ws, { user_id: ed.user.id, role: 'editor' }).then((r) => expect(r.status).toBe(201));
    const res = await api(server).get(`/organizations/${ws}/audit-log`).set(await switchTo(server, ed.auth, ws));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_role', details: { required: 'admin' } });
  });
});

describe('expired invitations (INVITATION_TTL_HOURS shortened)', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    // About 1.8 seconds.
    server = await startServer(backing, { INVITATION_TTL_HOURS: '0.0005' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('answers 410 invitation_expired to accepting or registering with an expired token, and creates no account', async () => {
    const owner = await registerUser(server);
    await setPlan(server, await loginAdmin(server), owner.workspace.id, 'pro');
    const email = uniqueEmail('late');
    const token = (await add(server, owner.auth, owner.workspace.id, { email, role: 'viewer' })).body.invitation.token as string;
    await waitFor(async () => {
      const res = await api(server).get(`/organizations/${owner.workspace.id}/members`).set(owner.auth);
      return res.body.invitations.length === 0;
    }, 15_000, 'the invitation to expire');

    const reg = await api(server).post('/auth/register').send({ email, password: PASSWORD, accept_terms: true, accept_privacy: true, invitation_token: token });
    expect(reg.status).toBe(410);
    expect(reg.body.code).toBe('invitation_expired');
    expect((await api(server).post('/auth/login').send({ email, password: PASSWORD })).status).toBe(401);

    const user = await registerUser(server, { email });
    const accept = await api(server).post(`/invitations/${token}/accept`).set(user.auth);
    expect(accept.status).toBe(410);
    // An expired invitation frees its seat.
    expect((await add(server, owner.auth, owner.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
  });
});
