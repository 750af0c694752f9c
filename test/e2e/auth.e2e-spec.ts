import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { api, registerUser, uniqueEmail } from '../helpers/api.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct-horse-battery';

function registration(overrides: Record<string, unknown> = {}) {
  return { email: uniqueEmail('auth'), password: PASSWORD, accept_terms: true, accept_privacy: true, ...overrides };
}

/** The error body without its per-request id, to compare two failures. */
function withoutRequestId(body: Record<string, unknown>) {
  const { request_id: _id, ...rest } = body;
  return rest;
}

describe('auth', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { AUTH_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  /** An access token for the same user and session as `token`, signed with the server's secret, with other claims. */
  function forge(token: string, claims: Record<string, unknown>, options: jwt.SignOptions = {}): string {
    const decoded = jwt.decode(token) as { sub: string; sid: string };
    return jwt.sign({ sid: decoded.sid, sub: decoded.sub, iss: 'persona-studio', aud: 'persona-studio-api', ...claims }, backing.env.JWT_SECRET, {
      algorithm: 'HS256',
      ...options,
    });
  }

  describe('POST /auth/register', () => {
    it('creates the user and a Starter workspace with 50 credits, and signs in', async () => {
      const email = uniqueEmail('Reg');
      const res = await api(server).post('/auth/register').send(registration({ email: `  ${email.toUpperCase()} `, locale: 'pt-BR' }));
      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        user: {
          id: expect.stringMatching(/^user_[0-9A-Z]{26}$/),
          email: email.toLowerCase(),
          email_verified: false,
          display_name: email.toLowerCase().split('@')[0],
          status: 'active',
          role: 'user',
          locale: 'pt-BR',
          onboarding_step: 'welcome',
          mfa_enabled: false,
          sign_in_alerts: false,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
      });
      expect(Buffer.from(res.body.refresh_token, 'base64url').length).toBeGreaterThanOrEqual(32);

      const me = await api(server).get('/auth/me').set('Authorization', `Bearer ${res.body.access_token}`);
      expect(me.status).toBe(200);
      expect(me.body.user).toEqual(res.body.user);
      expect(me.body.workspace).toEqual({
        id: expect.stringMatching(/^ws_[0-9A-Z]{26}$/),
        name: expect.any(String),
        plan: 'starter',
        credits_balance: 50,
        character_limit: 3,
        created_at: expect.any(String),
      });
    });

    it('keeps a given display name and defaults the locale to en', async () => {
      const res = await api(server).post('/auth/register').send(registration({ display_name: '  Ada Lovelace ' }));
      expect(res.status).toBe(201);
      expect(res.body.user).toMatchObject({ display_name: 'Ada Lovelace', locale: 'en' });
    });

    it('answers 409 email_taken for an existing email in another case, and creates nothing', async () => {
      const email = uniqueEmail('dup');
      expect((await api(server).post('/auth/register').send(registration({ email }))).status).toBe(201);
      const again = await api(server).post('/auth/register').send(registration({ email: email.toUpperCase() }));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ statusCode: 409, code: 'email_taken' });
      const login = await api(server).post('/auth/login').send({ email, password: PASSWORD });
      expect(login.status).toBe(200);
    });

    it.each([
      ['an unknown field', { role: 'admin' }, 'role'],
      ['a malformed email', { email: 'not-an-email' }, 'email'],
      ['an email over 254 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` }, 'email'],
      ['a password under 8 characters', { password: 'short' }, 'password'],
      ['a password over 128 characters', { password: 'p'.repeat(129) }, 'password'],
      ['terms not accepted', { accept_terms: false }, 'accept_terms'],
      ['terms as a string', { accept_terms: 'true' }, 'accept_terms'],
      ['privacy missing', { accept_privacy: undefined }, 'accept_privacy'],
      ['a display name over 80 characters', { display_name: 'x'.repeat(81) }, 'display_name'],
      ['a locale over 10 characters', { locale: 'en-US-x-long' }, 'locale'],
    ])('answers 400 validation_failed for %s', async (_what, overrides, field) => {
      const res = await api(server).post('/auth/register').send(registration(overrides));
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    });

    it('says a missing accept_terms or accept_privacy must be true, not only that it is required', async () => {
      for (const field of ['accept_terms', 'accept_privacy']) {
        const res = await api(server).post('/auth/register').send(registration({ [field]: undefined }));
        expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
        expect(res.body.details).toEqual([{ field, message: `${field} is required and must be true` }]);
      }
    });
  });

  describe('POST /auth/login', () => {
    it('signs in with the right password, whatever the email case', async () => {
      const user = await registerUser(server);
      const res = await api(server).post('/auth/login').send({ email: ` ${user.user.email.toUpperCase()}`, password: PASSWORD });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ user: { id: user.user.id, email: user.user.email }, token_type: 'Bearer', expires_in: 3600 });
      const me = await api(server).get('/auth/me').set('Authorization', `Bearer ${res.body.access_token}`);
      expect(me.status).toBe(200);
    });

    it('answers a wrong password and an unknown email with the same 401 invalid_credentials body', async () => {
      const user = await registerUser(server);
      const wrong = await api(server).post('/auth/login').send({ email: user.user.email, password: 'wrong-password' });
      const unknown = await api(server).post('/auth/login').send({ email: uniqueEmail('nobody'), password: 'wrong-password' });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body.code).toBe('invalid_credentials');
      expect(withoutRequestId(wrong.body)).toEqual(withoutRequestId(unknown.body));
    });

    it('answers 400 for a missing password or an unknown field', async () => {
      const missing = await api(server).post('/auth/login').send({ email: uniqueEmail() });
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('validation_failed');
      const extra = await api(server).post('/auth/login').send({ email: uniqueEmail(), password: PASSWORD, remember: true });
      expect(extra.status).toBe(400);
    });

    it('refuses an email with 10 failed sign-ins for a while, even with the right password', async () => {
      const user = await registerUser(server);
      for (let i = 0; i < 10; i++) {
        const res = await api(server).post('/auth/login').send({ email: user.user.email, password: `wrong-${i}-password` });
        expect(res.status).toBe(401);
      }
      const locked = await api(server).post('/auth/login').send({ email: user.user.email.toUpperCase(), password: PASSWORD });
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe('rate_limited');
      expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another email from the same address is not affected.
      const other = await registerUser(server);
      expect((await api(server).post('/auth/login').send({ email: other.user.email, password: PASSWORD })).status).toBe(200);
    });

    it('has made the admin account from ADMIN_EMAIL and ADMIN_PASSWORD', async () => {
      const res = await api(server).post('/auth/login').send({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
      expect(res.status).toBe(200);
      expect(res.body.user.role).toBe('admin');
      const me = await api(server).get('/auth/me').set('Authorization', `Bearer ${res.body.access_token}`);
      expect(me.body.workspace.plan).toBe('agency');
    });
  });

  describe('GET /auth/me', () => {
    it('answers 401 unauthorized without a bearer token', async () => {
      const none = await api(server).get('/auth/me');
      expect(none.status).toBe(401);
      expect(none.body.code).toBe('unauthorized');
      const basic = await api(server).get('/auth/me').set('Authorization', 'Basic dXNlcjpwYXNz');
      expect(basic.status).toBe(401);
    });

    it('answers 401 unauthorized for malformed, forged, expired and foreign tokens', async () => {
      const user = await registerUser(server);
      const valid = forge(user.token, {}, { expiresIn: 600 });
      expect((await api(server).get('/auth/me').set('Authorization', `Bearer ${valid}`)).status).toBe(200);

      const bad = [
        'not-a-jwt',
        `${user.token}x`,
        forge(user.token, { exp: Math.floor(Date.now() / 1000) - 60 }),
        forge(user.token, { aud: 'someone-else' }, { expiresIn: 600 }),
        forge(user.token, { iss: 'someone-else' }, { expiresIn: 600 }),
        jwt.sign({ sub: user.user.id, sid: (jwt.decode(user.token) as { sid: string }).sid }, 'another-secret-0123456789abcdef0123', { expiresIn: 600 }),
        // alg "none": the algorithm is pinned, so an unsigned token is refused
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${user.token.split('.')[1]}.`,
      ];
      for (const token of bad) {
        const res = await api(server).get('/auth/me').set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('unauthorized');
      }
    });

    it('answers 401 session_required for an API-key-shaped token', async () => {
      const res = await api(server).get('/auth/me').set('Authorization', 'Bearer psk_0123456789abcdef0123456789abcdef');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('session_required');
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates the pair within the session', async () => {
      const user = await registerUser(server);
      const res = await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toMatchObject({ user: { id: user.user.id }, token_type: 'Bearer', expires_in: 3600 });
      expect(res.body.refresh_token).not.toBe(user.refreshToken);
      expect((jwt.decode(res.body.access_token) as { sid: string }).sid).toBe((jwt.decode(user.token) as { sid: string }).sid);
      const me = await api(server).get('/auth/me').set('Authorization', `Bearer ${res.body.access_token}`);
      expect(me.status).toBe(200);
      const next = await api(server).post('/auth/refresh').send({ refresh_token: res.body.refresh_token });
      expect(next.status).toBe(200);
    });

    it('revokes the whole family when a rotated token is presented again', async () => {
      const user = await registerUser(server);
      const rotated = await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      expect(rotated.status).toBe(200);

      const reused = await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      expect(reused.status).toBe(401);
      expect(reused.body.code).toBe('refresh_token_reused');

      const newest = await api(server).post('/auth/refresh').send({ refresh_token: rotated.body.refresh_token });
      expect(newest.status).toBe(401);
      expect(newest.body.code).toBe('invalid_refresh_token');
      for (const token of [user.token, rotated.body.access_token]) {
        expect((await api(server).get('/auth/me').set('Authorization', `Bearer ${token}`)).status).toBe(401);
      }
    });

    it('leaves other sessions of the same user alone when one family is revoked', async () => {
      const user = await registerUser(server);
      const other = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      expect((await api(server).get('/auth/me').set('Authorization', `Bearer ${other.body.access_token}`)).status).toBe(200);
    });

    it('answers 401 invalid_refresh_token for an unknown token and 400 for a missing one', async () => {
      const unknown = await api(server).post('/auth/refresh').send({ refresh_token: 'dGhpcyBpcyBub3QgYSByZWFsIHJlZnJlc2ggdG9rZW4' });
      expect(unknown.status).toBe(401);
      expect(unknown.body.code).toBe('invalid_refresh_token');
      const missing = await api(server).post('/auth/refresh').send({});
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('validation_failed');
    });
  });

  describe('POST /auth/logout', () => {
    it('ends the session: its access and refresh tokens stop working at once', async () => {
      const user = await registerUser(server);
      const res = await api(server).post('/auth/logout').set(user.auth);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const me = await api(server).get('/auth/me').set(user.auth);
      expect(me.status).toBe(401);
      expect(me.body.code).toBe('unauthorized');
      const refresh = await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken });
      expect(refresh.status).toBe(401);
      expect(refresh.body.code).toBe('invalid_refresh_token');
    });

    it('also ends the session of a given refresh token of the same user, but not another user\'s', async () => {
      const user = await registerUser(server);
      const second = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      const stranger = await registerUser(server);
      const res = await api(server)
        .post('/auth/logout')
        .set(user.auth)
        .send({ refresh_token: second.body.refresh_token });
      expect(res.status).toBe(204);
      expect((await api(server).get('/auth/me').set('Authorization', `Bearer ${second.body.access_token}`)).status).toBe(401);

      const other = await registerUser(server);
      await api(server).post('/auth/logout').set(other.auth).send({ refresh_token: stranger.refreshToken });
      expect((await api(server).get('/auth/me').set(stranger.auth)).status).toBe(200);
    });

    it('answers 401 without a token and 400 for an unknown field', async () => {
      expect((await api(server).post('/auth/logout')).status).toBe(401);
      const user = await registerUser(server);
      const res = await api(server).post('/auth/logout').set(user.auth).send({ everywhere: true });
      expect(res.status).toBe(400);
    });
  });
});
