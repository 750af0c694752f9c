import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { api, loginAdmin, missingId, registerUser, setPlan, uniqueEmail, type TestUser } from '../helpers/api.js';
import { inviteAndAccept } from '../helpers/invitations.js';
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

  it('invites a known and an unknown email alike (same status, same body shape), and nobody joins before accepting', async () => {
    const known = await registerUser(server);
    const unknown = uniqueEmail('nobody');
    const toKnown = await add(server, owner.auth, ws, { email: known.user.email.toUpperCase(), role: 'editor' });
    const toUnknown = await add(server, owner.auth, ws, { email: unknown, role: 'editor' });
    expect([toKnown.status, toUnknown.status]).toEqual([201, 201]);
    const shape = (body: Record<string, any>) => ({ keys: Object.keys(body), invitation: Object.keys(body.invitation).sort() });
    expect(shape(toKnown.body)).toEqual(shape(toUnknown.body));
    expect(toKnown.body.invitation).toEqual({ id: expect.stringMatching(/^inv_/), email: known.user.email, role: 'editor', expires_at: expect.any(String), token: expect.stringMatching(/^pinv_/) });
    expect(toUnknown.body.invitation).toMatchObject({ email: unknown, role: 'editor' });

    // Not a member until they accept: no membership, no access, not listed.
    const members = (await api(server).get(`/organizations/${ws}/members`).set(owner.auth)).body;
    expect(members.members.map((m: { user_id: string }) => m.user_id)).not.toContain(known.user.id);
    expect(members.invitations.map((i: { email: string }) => i.email)).toEqual(expect.arrayContaining([known.user.email, unknown]));
    expect(JSON.stringify(members)).not.toContain(toKnown.body.invitation.token);
    expect((await api(server).get(`/organizations/${ws}`).set(known.auth)).status).toBe(404);
    expect((await api(server).post('/auth/switch-workspace').set(known.auth).send({ workspace_id: ws })).status).toBe(404);

    for (const again of [{ email: known.user.email }, { email: unknown }]) {
      const dup = await add(server, owner.auth, ws, { ...again, role: 'viewer' });
      expect([dup.status, dup.body.code]).toEqual([409, 'member_exists']);
    }
    const accepted = await api(server).post(`/invitations/${toKnown.body.invitation.id}/accept`).set(known.auth);
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization).toMatchObject({ id: ws, role: 'editor' });
    expect((await add(server, owner.auth, ws, { email: known.user.email, role: 'viewer' })).body.code).toBe('member_exists');
  });

  it('answers a user id alike whether it names an account or not (invitations go by email only), and validates the request', async () => {
    const viewer = await registerUser(server);
    // A known id once answered 201 with its owner's email and an unknown one 404: an account check.
    const byKnownId = await add(server, owner.auth, ws, { user_id: viewer.user.id, role: 'viewer' });
    const byUnknownId = await add(server, owner.auth, ws, { user_id: missingId('user'), role: 'viewer' });
    const answer = (res: { status: number; body: Record<string, unknown> }) => ({ status: res.status, code: res.body.code, message: res.body.message, details: res.body.details });
    expect(answer(byKnownId)).toEqual(answer(byUnknownId));
    expect(answer(byKnownId)).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(JSON.stringify(byKnownId.body)).not.toContain(viewer.user.email);
    expect((await api(server).get(`/organizations/${ws}/members`).set(owner.auth)).body.invitations.map((i: { email: string }) => i.email)).not.toContain(viewer.user.email);

    expect((await add(server, owner.auth, ws, { role: 'viewer' })).status).toBe(400);
    expect((await add(server, owner.auth, ws, { email: uniqueEmail(), user_id: viewer.user.id, role: 'viewer' })).status).toBe(400);
    expect((await add(server, owner.auth, ws, { email: uniqueEmail(), role: 'boss' })).status).toBe(400);
    expect((await add(server, owner.auth, ws, { email: 'not an email', role: 'viewer' })).status).toBe(400);

    const byEmail = await add(server, owner.auth, ws, { email: viewer.user.email, role: 'viewer' });
    expect(byEmail.status).toBe(201);
    expect(Object.keys(byEmail.body)).toEqual(['invitation']);
    expect((await api(server).post(`/invitations/${byEmail.body.invitation.id}/accept`).set(viewer.auth)).status).toBe(200);
    const asViewer = await api(server).get(`/organizations/${ws}/members`).set(await switchTo(server, viewer.auth, ws));
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.members.map((m: { user_id: string }) => m.user_id)).toEqual(expect.arrayContaining([owner.user.id, viewer.user.id]));
    expect(asViewer.body.invitations).toBeUndefined();
  });

  it('shows the invitee their pending invitations across organisations, paged, without tokens; answers by id for the invitee only', async () => {
    const invitee = await registerUser(server);
    const other = await registerUser(server);
    await setPlan(server, admin, other.workspace.id, 'pro');
    const fromOwner = (await add(server, owner.auth, ws, { email: invitee.user.email, role: 'editor' })).body.invitation;
    const fromOther = (await add(server, other.auth, other.workspace.id, { email: invitee.user.email.toUpperCase(), role: 'viewer' })).body.invitation;
    await add(server, owner.auth, ws, { email: uniqueEmail('someone-else'), role: 'viewer' });

    const inbox = await api(server).get('/invitations').set(invitee.auth);
    expect(inbox.status).toBe(200);
    expect(inbox.body).toEqual({
      invitations: [
        { id: fromOwner.id, organization: { id: ws, name: expect.any(String) }, role: 'editor', invited_by: { email: owner.user.email, display_name: expect.any(String) }, expires_at: fromOwner.expires_at, created_at: expect.any(String) },
        expect.objectContaining({ id: fromOther.id, organization: expect.objectContaining({ id: other.workspace.id }), role: 'viewer', invited_by: expect.objectContaining({ email: other.user.email }) }),
      ],
      page: 1,
      page_size: 20,
      total: 2,
    });
    expect(JSON.stringify(inbox.body)).not.toContain('pinv_');
    const paged = await api(server).get('/invitations?page=2&page_size=1').set(invitee.auth);
    expect(paged.body).toMatchObject({ invitations: [expect.objectContaining({ id: fromOther.id })], page: 2, page_size: 1, total: 2 });
    expect((await api(server).get('/invitations?page_size=0').set(invitee.auth)).status).toBe(400);
    expect((await api(server).get('/invitations')).status).toBe(401);

    // Someone else's invitation id is not found, to accept or to decline; so is a malformed one.
    const stranger = await registerUser(server);
    expect((await api(server).get('/invitations').set(stranger.auth)).body).toMatchObject({ invitations: [], total: 0 });
    for (const action of ['accept', 'decline']) {
      expect((await api(server).post(`/invitations/${fromOwner.id}/${action}`).set(stranger.auth)).status).toBe(404);
      expect((await api(server).post(`/invitations/${missingId('inv')}/${action}`).set(invitee.auth)).status).toBe(404);
      expect((await api(server).post(`/invitations/inv_nonsense/${action}`).set(invitee.auth)).status).toBe(404);
    }

    const declined = await api(server).post(`/invitations/${fromOther.id}/decline`).set(invitee.auth).set('X-Request-Id', requestId('dec'));
    expect(declined.status).toBe(204);
    const accepted = await api(server).post(`/invitations/${fromOwner.id}/accept`).set(invitee.auth);
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization).toMatchObject({ id: ws, role: 'editor' });
    expect((await api(server).get('/invitations').set(invitee.auth)).body).toMatchObject({ invitations: [], total: 0 });
    // Answered once: neither can be answered again, by id or by token.
    expect((await api(server).post(`/invitations/${fromOther.id}/accept`).set(invitee.auth)).status).toBe(404);
    expect((await api(server).post(`/invitations/${fromOther.token}/accept`).set(invitee.auth)).status).toBe(404);
    expect((await api(server).post(`/invitations/${fromOwner.id}/decline`).set(invitee.auth)).status).toBe(404);
    expect((await api(server).get(`/organizations/${other.workspace.id}`).set(invitee.auth)).status).toBe(404);

    const declines = await auditEntries(server, other.auth, other.workspace.id, { action: 'invitation.declined' });
    expect(declines).toEqual([expect.objectContaining({ actor_user_id: invitee.user.id, target_type: 'invitation', target_id: fromOther.id })]);
    // A declined invitation frees its seat: the pro plan's 3 seats hold the owner and two new invitations.
    expect((await add(server, other.auth, other.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
    expect((await add(server, other.auth, other.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
  });

  it('revokes a pending invitation (owner): its id and token stop working, its seat is freed, and it is audited', async () => {
    const o = await registerUser(server);
    await setPlan(server, admin, o.workspace.id, 'pro');
    const invitee = await registerUser(server);
    const inv = (await add(server, o.auth, o.workspace.id, { email: invitee.user.email, role: 'viewer' })).body.invitation;
    const revoke = (auth: Auth, wsId: string, id: string) => api(server).delete(`/organizations/${wsId}/invitations/${id}`).set(auth);

    // Another organisation's owner, with their own workspace in the path, or a stranger with ours: 404.
    const outsider = await registerUser(server);
    expect((await revoke(outsider.auth, outsider.workspace.id, inv.id)).status).toBe(404);
    expect((await revoke(outsider.auth, o.workspace.id, inv.id)).status).toBe(404);
    expect((await revoke(o.auth, o.workspace.id, missingId('inv'))).status).toBe(404);
    expect((await revoke(o.auth, o.workspace.id, 'not-an-id')).status).toBe(404);
    // A member below owner is refused.
    const adminMember = await registerUser(server);
    await inviteAndAccept(server, o.auth, o.workspace.id, adminMember, 'admin');
    const refused = await revoke(await switchTo(server, adminMember.auth, o.workspace.id), o.workspace.id, inv.id);
    expect(refused.body).toMatchObject({ code: 'insufficient_role', details: { required: 'owner' } });
    // Pro: 3 seats, owner + admin + the invitation. Full until it is revoked.
    expect((await add(server, o.auth, o.workspace.id, { email: uniqueEmail(), role: 'viewer' })).body.code).toBe('member_limit_reached');

    expect((await revoke(o.auth, o.workspace.id, inv.id).set('X-Request-Id', requestId('rev'))).status).toBe(204);
    expect((await revoke(o.auth, o.workspace.id, inv.id)).status).toBe(404);
    expect((await api(server).get('/invitations').set(invitee.auth)).body.total).toBe(0);
    expect((await api(server).post(`/invitations/${inv.id}/accept`).set(invitee.auth)).status).toBe(404);
    expect((await api(server).post(`/invitations/${inv.token}/accept`).set(invitee.auth)).status).toBe(404);
    expect((await api(server).get(`/organizations/${o.workspace.id}/members`).set(o.auth)).body.invitations).toEqual([]);
    expect((await add(server, o.auth, o.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
    const revoked = await auditEntries(server, o.auth, o.workspace.id, { action: 'invitation.revoked' });
    expect(revoked).toEqual([expect.objectContaining({ actor_user_id: o.user.id, target_id: inv.id, details: { email: invitee.user.email, role: 'viewer' } })]);
  });

  it('only an owner manages members: an admin is refused with insufficient_role', async () => {
    const adm = await registerUser(server);
    await inviteAndAccept(server, owner.auth, ws, adm, 'admin');
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
    await inviteAndAccept(server, pro.auth, pro.workspace.id, member, 'viewer');
    expect((await add(server, pro.auth, pro.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
    const third = await add(server, pro.auth, pro.workspace.id, { email: uniqueEmail(), role: 'viewer' });
    expect(third.body.code).toBe('member_limit_reached');
    expect(await auditEntries(server, pro.auth, pro.workspace.id, { action: 'member.invited' })).toHaveLength(2);
  });

  it('an invitation is accepted once, by the user with its email; registering with a token joins too', async () => {
    const email = uniqueEmail('accept');
    const first = (await add(server, owner.auth, ws, { email, role: 'viewer' })).body.invitation as { id: string; token: string };
    const token = first.token;
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
    const second = (await add(server, owner.auth, ws, { email: email2, role: 'editor' })).body.invitation as { id: string; token: string };
    const token2 = second.token;
    const joined = await registerUser(server, { email: email2, invitation_token: token2 });
    const me = await api(server).get('/auth/me').set(joined.auth);
    expect(me.body.workspaces).toEqual(expect.arrayContaining([expect.objectContaining({ id: ws, role: 'editor' })]));

    const email3 = uniqueEmail('reuse');
    const reused = await api(server).post('/auth/register').send({ email: email3, password: PASSWORD, accept_terms: true, accept_privacy: true, invitation_token: token2 });
    expect(reused.status).toBe(404);
    expect((await api(server).post('/auth/login').send({ email: email3, password: PASSWORD })).status).toBe(401);
    const accepts = await auditEntries(server, owner.auth, ws, { action: 'invitation.accepted' });
    expect(accepts.filter((e) => e.target_type === 'invitation' && [first.id, second.id].includes(e.target_id))).toHaveLength(2);
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
    await inviteAndAccept(server, o.auth, wsId, m, 'viewer');
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
    await inviteAndAccept(server, o.auth, wsId, leaver, 'viewer');
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
    await inviteAndAccept(server, a.auth, wsId, b, 'owner');
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
    // u joins `other`'s workspace as a viewer, makes `other` an owner of u's workspace; `other` removes u from it.
    await inviteAndAccept(server, other.auth, other.workspace.id, u, 'viewer');
    await inviteAndAccept(server, u.auth, u.workspace.id, other, 'owner');
    const asOther = await switchTo(server, other.auth, u.workspace.id);
    expect((await api(server).delete(`/organizations/${u.workspace.id}/members/${u.user.id}`).set(asOther)).status).toBe(204);
    // A sign-in lands in the workspace u still has.
    const login = await api(server).post('/auth/login').send({ email: u.user.email, password: PASSWORD });
    expect(login.status).toBe(200);
    const me = await api(server).get('/auth/me').set({ Authorization: `Bearer ${login.body.access_token}` });
    expect(me.body).toMatchObject({ workspace: { id: other.workspace.id }, workspace_role: 'viewer', workspaces: [{ id: other.workspace.id, role: 'viewer' }] });

    // v has no other workspace: removed from its own, v cannot sign in.
    const v = await registerUser(server);
    await setPlan(server, admin, v.workspace.id, 'pro');
    await inviteAndAccept(server, v.auth, v.workspace.id, other, 'owner');
    const otherInV = await switchTo(server, other.auth, v.workspace.id);
    expect((await api(server).delete(`/organizations/${v.workspace.id}/members/${v.user.id}`).set(otherInV)).status).toBe(204);
    const refused = await api(server).post('/auth/login').send({ email: v.user.email, password: PASSWORD });
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });

  it('writes exactly one audit entry per action, with actor and request id, and none for a failed action', async () => {
    const o = await registerUser(server);
    const wsId = o.workspace.id;
    await setPlan(server, admin, wsId, 'agency');
    const m = await registerUser(server);
    const ids = { add: requestId('add'), accept: requestId('acc'), role: requestId('role'), fail: requestId('fail'), remove: requestId('rm') };
    const invited = await add(server, o.auth, wsId, { email: m.user.email, role: 'viewer' }, ids.add);
    expect(invited.status).toBe(201);
    expect((await add(server, o.auth, wsId, { email: m.user.email, role: 'viewer' }, ids.fail)).status).toBe(409);
    const accept = api(server).post(`/invitations/${invited.body.invitation.id}/accept`).set(m.auth).set('X-Request-Id', ids.accept);
    expect((await accept).status).toBe(200);
    const demote = api(server).put(`/organizations/${wsId}/members/${o.user.id}`).set(o.auth).set('X-Request-Id', ids.fail).send({ role: 'viewer' });
    expect((await demote).status).toBe(409);
    await api(server).put(`/organizations/${wsId}/members/${m.user.id}`).set(o.auth).set('X-Request-Id', ids.role).send({ role: 'editor' }).expect(200);
    await api(server).delete(`/organizations/${wsId}/members/${m.user.id}`).set(o.auth).set('X-Request-Id', ids.remove).expect(204);

    const entries = await auditEntries(server, o.auth, wsId);
    const byRequest = (id: string) => entries.filter((e) => e.request_id === id);
    expect(byRequest(ids.fail)).toEqual([]);
    const inv = invited.body.invitation.id;
    expect(byRequest(ids.add)).toEqual([expect.objectContaining({ action: 'member.invited', actor_user_id: o.user.id, actor_email: o.user.email, target_type: 'invitation', target_id: inv, details: { email: m.user.email, role: 'viewer' } })]);
    expect(byRequest(ids.accept)).toEqual([expect.objectContaining({ action: 'invitation.accepted', actor_user_id: m.user.id, target_id: inv, details: { role: 'viewer' } })]);
    expect(byRequest(ids.role)).toEqual([expect.objectContaining({ action: 'member.role_changed', details: { from: 'viewer', to: 'editor' } })]);
    expect(byRequest(ids.remove)).toEqual([expect.objectContaining({ action: 'member.removed', target_id: m.user.id })]);
    expect(entries[0].created_at).toMatch(/Z$/);

    const page1 = await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ limit: 2 });
    expect(page1.body.entries).toHaveLength(2);
    expect(page1.body.next_before).toBe(page1.body.entries[1].id);
    const page2 = await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ limit: 2, before: page1.body.next_before });
    expect(page2.body.entries.map((e: { id: string }) => e.id)).toEqual(entries.slice(2, 4).map((e) => e.id));
    expect((await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ actor_id: m.user.id })).body.entries).toEqual(byRequest(ids.accept));
    expect((await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ limit: 201 })).status).toBe(400);
    expect((await api(server).get(`/organizations/${wsId}/audit-log`).set(o.auth).query({ action: 'nope' })).status).toBe(400);
  });

  it('the audit log is for admins and owners only', async () => {
    const ed = await registerUser(server);
    await inviteAndAccept(server, owner.auth, ws, ed, 'editor');
    const res = await api(server).get(`/organizations/${ws}/audit-log`).set(await switchTo(server, ed.auth, ws));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_role', details: { required: 'admin' } });
  });
});

describe('expired invitations (INVITATION_TTL_HOURS shortened), and tokens kept out of the access log', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    // About 1.8 seconds; access log lines are at info.
    server = await startServer(backing, { INVITATION_TTL_HOURS: '0.0005', LOG_LEVEL: 'info' });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('answers 410 invitation_expired to accepting (by token or id), declining or registering with an expired invitation, and creates no account', async () => {
    const owner = await registerUser(server);
    await setPlan(server, await loginAdmin(server), owner.workspace.id, 'pro');
    const email = uniqueEmail('late');
    const invitation = (await add(server, owner.auth, owner.workspace.id, { email, role: 'viewer' })).body.invitation as { id: string; token: string };
    const token = invitation.token;
    await waitFor(async () => {
      const res = await api(server).get(`/organizations/${owner.workspace.id}/members`).set(owner.auth);
      return res.body.invitations.length === 0;
    }, 15_000, 'the invitation to expire');

    const reg = await api(server).post('/auth/register').send({ email, password: PASSWORD, accept_terms: true, accept_privacy: true, invitation_token: token });
    expect(reg.status).toBe(410);
    expect(reg.body.code).toBe('invitation_expired');
    expect((await api(server).post('/auth/login').send({ email, password: PASSWORD })).status).toBe(401);

    const user = await registerUser(server, { email });
    expect((await api(server).get('/invitations').set(user.auth)).body.total).toBe(0);
    for (const path of [`/invitations/${token}/accept`, `/invitations/${invitation.id}/accept`, `/invitations/${invitation.id}/decline`]) {
      const res = await api(server).post(path).set(user.auth);
      expect([path, res.status, res.body.code]).toEqual([path, 410, 'invitation_expired']);
    }
    // Someone else still gets 404 for the id, expired or not.
    const stranger = await registerUser(server);
    expect((await api(server).post(`/invitations/${invitation.id}/accept`).set(stranger.auth)).status).toBe(404);
    // An expired invitation frees its seat, and may still be revoked.
    expect((await add(server, owner.auth, owner.workspace.id, { email: uniqueEmail(), role: 'viewer' })).status).toBe(201);
    expect((await api(server).delete(`/organizations/${owner.workspace.id}/invitations/${invitation.id}`).set(owner.auth)).status).toBe(204);
  });

  it('never writes an invitation token into the access log, on the route or on a mistyped path', async () => {
    const owner = await registerUser(server);
    await setPlan(server, await loginAdmin(server), owner.workspace.id, 'pro');
    const invitee = await registerUser(server);
    const { token } = (await add(server, owner.auth, owner.workspace.id, { email: invitee.user.email, role: 'viewer' })).body.invitation as { token: string };
    const ids = { typo: requestId('typo'), anon: requestId('anon'), accept: requestId('accept') };
    expect((await api(server).post(`/invitations/${token}/acept`).set(invitee.auth).set('X-Request-Id', ids.typo)).status).toBe(404);
    expect((await api(server).post(`/invitations/${token}/accept`).set('X-Request-Id', ids.anon)).status).toBe(401);
    expect((await api(server).post(`/invitations/${token}/accept`).set(invitee.auth).set('X-Request-Id', ids.accept)).status).toBe(200);

    const accessLines = () => server.output.join('').split('\n').filter((l) => l.includes('"msg":"request"'));
    const lineOf = (id: string) => accessLines().find((l) => l.includes(id));
    await waitFor(async () => Object.values(ids).every((id) => lineOf(id)), 10_000, 'the access log lines');
    expect(JSON.parse(lineOf(ids.accept)!)).toMatchObject({ path: '/api/v1/invitations/:idOrToken/accept', status: 200 });
    expect(JSON.parse(lineOf(ids.anon)!)).toMatchObject({ path: '/api/v1/invitations/:idOrToken/accept', status: 401 });
    expect(JSON.parse(lineOf(ids.typo)!)).toMatchObject({ path: '/api/v1/invitations/[redacted]/acept', status: 404 });
    expect(server.output.join('')).not.toContain(token.slice(5));
  });
});
