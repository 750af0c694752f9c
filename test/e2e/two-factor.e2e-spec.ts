import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { base32Decode, hotp, totpStep } from '../../src/modules/auth/domain/totp.js';
import { api, loginAdmin, registerUser, setPlan, uniqueEmail, type TestUser } from '../helpers/api.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

type Auth = { Authorization: string };
const PASSWORD = 'correct-horse-battery';
const bearer = (token: string): Auth => ({ Authorization: `Bearer ${token}` });

/**
 * An authenticator app for one secret, computed here from the secret the API handed out (RFC 6238
 * through the domain's HOTP, itself checked against the RFC vectors). It remembers the last step it
 * used, as the server does, and hands out the next acceptable one: the current step, else the next
 * (inside the +1 step tolerance), else waits for the clock. Never the previous step: a step boundary
 * passing between here and the server would put it out of the window.
 */
class Authenticator {
  private readonly key: Buffer;
  private last = -1;

  constructor(readonly secret: string) {
    this.key = base32Decode(secret);
  }

  async next(): Promise<string> {
    const step = await waitFor(async () => {
      const now = totpStep(Date.now());
      const candidate = Math.max(now, this.last + 1);
      return candidate <= now + 1 ? candidate : null;
    }, 65_000, 'a fresh TOTP step');
    this.last = step;
    return hotp(this.key, step);
  }

  /** A code for a step already used (a replay). */
  replay(): string {
    return hotp(this.key, this.last);
  }

  /** A 6-digit code that is none of the currently acceptable ones. */
  wrong(): string {
    const now = totpStep(Date.now());
    const valid = new Set([-2, -1, 0, 1, 2].map((d) => hotp(this.key, now + d)));
    for (let n = 0; ; n++) {
      const code = String(n).padStart(6, '0');
      if (!valid.has(code)) return code;
    }
  }
}

interface MfaUser extends TestUser {
  app: Authenticator;
  recoveryCodes: string[];
}

describe('two-factor sign-in (TOTP)', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
   }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  async function enableFor(user: TestUser): Promise<MfaUser> {
    const setup = await api(server).post('/auth/mfa/totp/setup').set(user.auth);
    expect(setup.status).toBe(200);
    const app = new Authenticator(setup.body.secret);
    const enabled = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: await app.next() });
    expect(enabled.status).toBe(200);
    return { ...user, app, recoveryCodes: enabled.body.recovery_codes };
  }

  async function mfaToken(email: string): Promise<string> {
    const res = await api(server).post('/auth/login').send({ email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.mfa_required).toBe(true);
    return res.body.mfa_token as string;
  }

  const verify = (body: Record<string, unknown>) => api(server).post('/auth/mfa/verify').send(body);

  describe('setup and enable', () => {
    it('hands out a secret and an otpauth URI, pending until a code from it is confirmed; answers 10 recovery codes once', async () => {
      const user = await registerUser(server);
      expect((await api(server).get('/auth/mfa').set(user.auth)).body).toEqual({ mfa: { enabled: false, pending: false, recovery_codes_remaining: 0 } });

      const first = await api(server).post('/auth/mfa/totp/setup').set(user.auth);
      expect(first.status).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      expect(first.body).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), otpauth_uri: expect.any(String) });
      expect(first.body.otpauth_uri.startsWith(`otpauth://totp/Persona%20Studio:${encodeURIComponent(user.user.email)}?`)).toBe(true);
      const uri = new URL(first.body.otpauth_uri);
      expect(uri.searchParams.get('secret')).toBe(first.body.secret);
      expect(uri.searchParams.get('issuer')).toBe('Persona Studio');
      expect((await api(server).get('/auth/mfa').set(user.auth)).body.mfa).toMatchObject({ enabled: false, pending: true });

      // Setting up again replaces the pending secret: a code from the first no longer enables.
      const second = await api(server).post('/auth/mfa/totp/setup').set(user.auth);
      expect(second.body.secret).not.toBe(first.body.secret);
      const stale = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: await new Authenticator(first.body.secret).next() });
      expect([stale.status, stale.body.code]).toEqual([400, 'invalid_mfa_code']);

      const app = new Authenticator(second.body.secret);
      const enabled = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: await app.next() });
      expect(enabled.status).toBe(200);
      expect(enabled.headers['cache-control']).toBe('no-store');
      expect(enabled.body.recovery_codes).toHaveLength(10);
      expect(new Set(enabled.body.recovery_codes).size).toBe(10);
      for (const code of enabled.body.recovery_codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

      const me = await api(server).get('/auth/me').set(user.auth);
      expect(me.body.user.mfa_enabled).toBe(true);
      expect((await api(server).get('/auth/mfa').set(user.auth)).body).toEqual({ mfa: { enabled: true, pending: false, recovery_codes_remaining: 10 } });

      // Once on: another setup or enable is a clear 409, and the secret is never shown again.
      const again = await api(server).post('/auth/mfa/totp/setup').set(user.auth);
      expect([again.status, again.body.code]).toEqual([409, 'mfa_already_enabled']);
      const reEnable = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: app.wrong() });
      expect([reEnable.status, reEnable.body.code]).toEqual([409, 'mfa_already_enabled']);
    });

    it('refuses enable without a setup, bad bodies, and callers without a session', async () => {
      const user = await registerUser(server);
      const none = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: '123456' });
      expect([none.status, none.body.code]).toEqual([409, 'mfa_setup_required']);
      for (const body of [{}, { code: '12345' }, { code: 'abcdef' }, { code: 123456 }, { code: '123456', extra: 1 }]) {
        const res = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send(body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
      for (const [method, path] of [['post', '/auth/mfa/totp/setup'], ['post', '/auth/mfa/totp/enable'], ['post', '/auth/mfa/disable'], ['get', '/auth/mfa']] as const) {
        expect((await api(server)[method](path).send({})).status).toBe(401);
        expect((await api(server)[method](path).set(bearer('not-a-jwt')).send({})).status).toBe(401);
      }
    });

    it('accepts codes typed with a space, as apps show them', async () => {
      const user = await registerUser(server);
      const setup = await api(server).post('/auth/mfa/totp/setup').set(user.auth);
      const code = await new Authenticator(setup.body.secret).next();
      const res = await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: `${code.slice(0, 3)} ${code.slice(3)}` });
      expect(res.status).toBe(200);
    });
  });

  describe('signing in', () => {
    it('a password alone answers mfa_required and no tokens; the code starts the session', async () => {
      const user = await enableFor(await registerUser(server));
      const login = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.headers['cache-control']).toBe('no-store');
      expect(login.body).toEqual({ mfa_required: true, mfa_token: expect.any(String), expires_in: 300 });
      expect(Buffer.from(login.body.mfa_token, 'base64url').length).toBe(32);
      // The mfa token is no session credential.
      expect((await api(server).get('/auth/me').set(bearer(login.body.mfa_token))).status).toBe(401);

      const done = await verify({ mfa_token: login.body.mfa_token, code: await user.app.next() });
      expect(done.status).toBe(200);
      expect(done.headers['cache-control']).toBe('no-store');
      expect(done.body).toEqual({
        user: expect.objectContaining({ id: user.user.id, email: user.user.email, mfa_enabled: true }),
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
      });
      const me = await api(server).get('/auth/me').set(bearer(done.body.access_token));
      expect(me.status).toBe(200);
      expect(me.body.workspace.id).toBe(user.workspace.id);
      // Recorded like any sign-in, in the same transaction as the session.
      const audit = await api(server).get(`/organizations/${user.workspace.id}/audit-log`).query({ action: 'auth.login' }).set(user.auth);
      expect(audit.body.entries.length).toBeGreaterThanOrEqual(1);

      // The mfa token is single use, even with a valid second factor.
      const reused = await verify({ mfa_token: login.body.mfa_token, recovery_code: user.recoveryCodes[0] });
      expect([reused.status, reused.body.code]).toEqual([401, 'invalid_mfa_token']);
    });

    it('refuses a replayed code (the same step) on the next sign-in, and an earlier step too', async () => {
      const user = await enableFor(await registerUser(server));
      const used = await user.app.next();
      expect((await verify({ mfa_token: await mfaToken(user.user.email), code: used })).status).toBe(200);
      const token = await mfaToken(user.user.email);
      const replay = await verify({ mfa_token: token, code: used });
      expect([replay.status, replay.body.code]).toEqual([400, 'invalid_mfa_code']);
      // The refusal did not spend the mfa token: a valid second factor still works with it.
      expect((await verify({ mfa_token: token, recovery_code: user.recoveryCodes[0] })).status).toBe(200);
    });

    it('two sign-ins racing with the same code: exactly one gets a session', async () => {
      const user = await enableFor(await registerUser(server));
      const [a, b] = [await mfaToken(user.user.email), await mfaToken(user.user.email)];
      const code = await user.app.next();
      const answers = await Promise.all([verify({ mfa_token: a, code }), verify({ mfa_token: b, code })]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    });

    it('a recovery code works once (in either field), and is counted down', async () => {
      const user = await enableFor(await registerUser(server));
      const [first, second] = user.recoveryCodes;
      const ok = await verify({ mfa_token: await mfaToken(user.user.email), recovery_code: first.toUpperCase() });
      expect(ok.status).toBe(200);
      const again = await verify({ mfa_token: await mfaToken(user.user.email), recovery_code: first });
      expect([again.status, again.body.code]).toEqual([400, 'invalid_mfa_code']);
      expect((await verify({ mfa_token: await mfaToken(user.user.email), code: second })).status).toBe(200);
      expect((await api(server).get('/auth/mfa').set(bearer(ok.body.access_token))).body.mfa.recovery_codes_remaining).toBe(8);
    });

    it('the 6th wrong code within 5 minutes is 429 with Retry-After, even if right; other users are not affected', async () => {
      const user = await enableFor(await registerUser(server));
      const token = await mfaToken(user.user.email);
      for (let i = 0; i < 5; i++) {
        const res = await verify({ mfa_token: token, code: user.app.wrong() });
        expect([i, res.status, res.body.code]).toEqual([i, 400, 'invalid_mfa_code']);
      }
      const sixth = await verify({ mfa_token: token, code: await user.app.next() });
      expect([sixth.status, sixth.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(sixth.headers['retry-after'])).toBeLessThanOrEqual(300);
      // Per user, whatever the token: a fresh password step does not reset it; wrong recovery codes count too.
      expect((await verify({ mfa_token: await mfaToken(user.user.email), recovery_code: 'aaaaa-bbbbb' })).status).toBe(429);
      // The signed-in routes that take codes share the budget.
      const disable = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: PASSWORD, recovery_code: user.recoveryCodes[0] });
      expect(disable.status).toBe(429);

      const other = await enableFor(await registerUser(server));
      expect((await verify({ mfa_token: await mfaToken(other.user.email), code: await other.app.next() })).status).toBe(200);
    });

    it('recovery-code guessing is limited the same way', async () => {
      const user = await enableFor(await registerUser(server));
      const token = await mfaToken(user.user.email);
      for (let i = 0; i < 5; i++) expect((await verify({ mfa_token: token, recovery_code: randomBytes(5).toString('hex') })).status).toBe(400);
      expect((await verify({ mfa_token: token, recovery_code: user.recoveryCodes[0] })).status).toBe(429);
    });

    it('a guessed, malformed or foreign mfa_token starts nothing; another user’s code is useless with yours', async () => {
      const alice = await enableFor(await registerUser(server));
      const bob = await enableFor(await registerUser(server));
      for (const guess of [randomBytes(32).toString('base64url'), 'x', alice.token, alice.refreshToken]) {
        const res = await verify({ mfa_token: guess, code: '123456' });
        expect([res.status, res.body.code]).toEqual([401, 'invalid_mfa_token']);
        expect(res.body.message).toMatch(/invalid, expired or already used/);
      }
      // Alice's token with Bob's valid code: Bob's code is not Alice's second factor.
      const aliceToken = await mfaToken(alice.user.email);
      const crossed = await verify({ mfa_token: aliceToken, code: await bob.app.next() });
      expect([crossed.status, crossed.body.code]).toEqual([400, 'invalid_mfa_code']);
      const crossedRecovery = await verify({ mfa_token: aliceToken, recovery_code: bob.recoveryCodes[0] });
      expect([crossedRecovery.status, crossedRecovery.body.code]).toEqual([400, 'invalid_mfa_code']);
      // Bob's recovery code was not spent by that.
      expect((await verify({ mfa_token: await mfaToken(bob.user.email), recovery_code: bob.recoveryCodes[0] })).status).toBe(200);
      // And the session started with Alice's token is Alice's.
      const mine = await verify({ mfa_token: aliceToken, code: await alice.app.next() });
      expect(mine.body.user.id).toBe(alice.user.id);
    });

    it('validates the verify body: exactly one of code and recovery_code, no unknown fields', async () => {
      for (const body of [{}, { mfa_token: 'x' }, { code: '123456' }, { mfa_token: 'x', code: '123456', recovery_code: 'aaaaa-bbbbb' }, { mfa_token: 'x', code: '123456', extra: true }, { mfa_token: 7, code: '123456' }]) {
        const res = await verify(body);
        expect([JSON.stringify(body), res.status, res.body.code]).toEqual([JSON.stringify(body), 400, 'validation_failed']);
      }
    });

    it('a wrong password still answers invalid_credentials for an account with two-factor, and no mfa token', async () => {
      const user = await enableFor(await registerUser(server));
      const res = await api(server).post('/auth/login').send({ email: user.user.email, password: 'wrong-password-123' });
      expect([res.status, res.body.code]).toEqual([401, 'invalid_credentials']);
      expect(res.body.mfa_token).toBeUndefined();
    });
  });

  describe('disable', () => {
    it('needs the password and a code; then sign-in takes the password alone again', async () => {
      const user = await enableFor(await registerUser(server));
      const wrongPassword = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: 'not-my-password', recovery_code: user.recoveryCodes[0] });
      expect([wrongPassword.status, wrongPassword.body.code]).toEqual([403, 'current_password_incorrect']);
      const wrongCode = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: PASSWORD, code: user.app.wrong() });
      expect([wrongCode.status, wrongCode.body.code]).toEqual([400, 'invalid_mfa_code']);
      const missing = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: PASSWORD });
      expect([missing.status, missing.body.code]).toEqual([400, 'validation_failed']);

      const off = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: PASSWORD, code: await user.app.next() });
      expect(off.status).toBe(204);
      expect((await api(server).get('/auth/me').set(user.auth)).body.user.mfa_enabled).toBe(false);
      expect((await api(server).get('/auth/mfa').set(user.auth)).body.mfa).toEqual({ enabled: false, pending: false, recovery_codes_remaining: 0 });
      const login = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      expect(login.status).toBe(200);
      expect(login.body.access_token).toEqual(expect.any(String));
      expect(login.body.mfa_required).toBeUndefined();

      const again = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: PASSWORD, code: '123456' });
      expect([again.status, again.body.code]).toEqual([409, 'mfa_not_enabled']);
    });

    it('takes a recovery code in the code field, and ends pending sign-ins', async () => {
      const user = await enableFor(await registerUser(server));
      const pending = await mfaToken(user.user.email);
      const off = await api(server).post('/auth/mfa/disable').set(user.auth).send({ password: PASSWORD, code: user.recoveryCodes[3] });
      expect(off.status).toBe(204);
      const late = await verify({ mfa_token: pending, code: await user.app.next() });
      expect([late.status, late.body.code]).toEqual([401, 'invalid_mfa_token']);
    });
  });

  describe("an organisation's requirement", () => {
    it('owners require it; members without it are refused with mfa_required except where they comply; lifted once they enable it', async () => {
      const admin = await loginAdmin(server);
      const owner = await registerUser(server);
      await setPlan(server, admin, owner.workspace.id, 'pro');
      const member = await registerUser(server);
      await inviteAndAccept(server, owner.auth, owner.workspace.id, member, 'admin');
      const memberThere = await switchTo(server, member.auth, owner.workspace.id);
      const put = (auth: Auth, body: Record<string, unknown>) => api(server).put(`/organizations/${owner.workspace.id}`).set(auth).send(body);

      // Only an owner, and only one who has two-factor on.
      const byAdmin = await put(memberThere, { require_mfa: true });
      expect([byAdmin.status, byAdmin.body.code]).toEqual([403, 'insufficient_role']);
      const withoutOwn = await put(owner.auth, { require_mfa: true });
      expect([withoutOwn.status, withoutOwn.body.code]).toEqual([403, 'mfa_required']);
      expect(withoutOwn.body.message).toMatch(/your own account/);
      expect((await put(owner.auth, { require_mfa: 'yes' })).status).toBe(400);
      expect((await api(server).get(`/organizations/${owner.workspace.id}`).set(owner.auth)).body.organization.require_mfa).toBe(false);

      await enableFor(owner);
      const on = await put(owner.auth, { require_mfa: true });
      expect(on.status).toBe(200);
      expect(on.body.organization).toMatchObject({ id: owner.workspace.id, require_mfa: true });
      const audit = await api(server).get(`/organizations/${owner.workspace.id}/audit-log`).query({ action: 'workspace.updated' }).set(owner.auth);
      expect(audit.body.entries[0]).toMatchObject({ actor_user_id: owner.user.id, details: { require_mfa: true } });

      // The member, acting in that workspace, is refused on product routes at once (no 30 s cache)...
      for (const path of ['/characters', `/organizations/${owner.workspace.id}/members`, '/billing/credits']) {
        const res = await api(server).get(path).set(memberThere);
        expect([path, res.status, res.body.code]).toEqual([path, 403, 'mfa_required']);
        expect(res.body.message).toMatch(/two-factor/);
      }
      // ...but may still see who they are, set up two-factor, and switch away.
      expect((await api(server).get('/auth/me').set(memberThere)).status).toBe(200);
      expect((await api(server).get('/auth/mfa').set(memberThere)).status).toBe(200);
      // In their own workspace, which requires nothing, they work as before.
      expect((await api(server).get('/characters').set(member.auth)).status).toBe(200);
      // The owner has two-factor: not refused.
      expect((await api(server).get('/characters').set(owner.auth)).status).toBe(200);

      const setup = await api(server).post('/auth/mfa/totp/setup').set(memberThere);
      expect(setup.status).toBe(200);
      const enabled = await api(server).post('/auth/mfa/totp/enable').set(memberThere).send({ code: await new Authenticator(setup.body.secret).next() });
      expect(enabled.status).toBe(200);
      expect((await api(server).get('/characters').set(memberThere)).status).toBe(200);

      // Lifting the requirement: any member without two-factor gets in again.
      const newcomer = await registerUser(server);
      await inviteAndAccept(server, owner.auth, owner.workspace.id, newcomer, 'viewer');
      const newcomerThere = await switchTo(server, newcomer.auth, owner.workspace.id);
      expect((await api(server).get('/characters').set(newcomerThere)).status).toBe(403);
      const off = await put(owner.auth, { require_mfa: false });
      expect([off.status, off.body.organization.require_mfa]).toEqual([200, false]);
      expect((await api(server).get('/characters').set(newcomerThere)).status).toBe(200);
    });

    it('switching into a requiring workspace and logging out stay open', async () => {
      const admin = await loginAdmin(server);
      const owner = await enableFor(await registerUser(server));
      await setPlan(server, admin, owner.workspace.id, 'pro');
      expect((await api(server).put(`/organizations/${owner.workspace.id}`).set(owner.auth).send({ require_mfa: true })).status).toBe(200);
      const member = await registerUser(server);
      await inviteAndAccept(server, owner.auth, owner.workspace.id, member, 'editor');
      const there = await switchTo(server, member.auth, owner.workspace.id);
      expect((await api(server).get('/characters').set(there)).status).toBe(403);
      const back = await api(server).post('/auth/switch-workspace').set(there).send({ workspace_id: member.workspace.id });
      expect(back.status).toBe(200);
      expect((await api(server).get('/characters').set(bearer(back.body.access_token))).status).toBe(200);
      expect((await api(server).post('/auth/logout').set(there).send({})).status).toBe(204);
    });
  });
});

describe('two-factor sign-in: the mfa token expires', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000', MFA_TOKEN_TTL_SECONDS: '1' });
   }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('an expired mfa token is refused like an unknown one, even with the right code', async () => {
    const email = uniqueEmail('mfa-expiry');
    const user = await registerUser(server, { email });
    const setup = await api(server).post('/auth/mfa/totp/setup').set(user.auth);
    const app = new Authenticator(setup.body.secret);
    expect((await api(server).post('/auth/mfa/totp/enable').set(user.auth).send({ code: await app.next() })).status).toBe(200);
    const login = await api(server).post('/auth/login').send({ email, password: PASSWORD });
    expect(login.body).toMatchObject({ mfa_required: true, expires_in: 1 });
    const issuedAt = Date.now();
    await waitFor(async () => Date.now() - issuedAt > 1_500, 5_000, 'the mfa token to expire');
    const late = await api(server).post('/auth/mfa/verify').send({ mfa_token: login.body.mfa_token, code: await app.next() });
    expect([late.status, late.body.code]).toEqual([401, 'invalid_mfa_token']);
  });
});
