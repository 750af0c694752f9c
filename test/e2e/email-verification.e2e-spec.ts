import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { api, loginAdmin, missingId, registerUser, setPlan, uniqueEmail, verifyEmail, type TestUser } from '../helpers/api.js';
import { mailboxLink, tokenFromLink } from '../helpers/mail.js';
import { ADMIN_EMAIL, createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';

/**
 * Email verification, the verified-email gate and email change (issue 26), through the dev
 * mailbox: the server runs without SMTP_URL, so every message lands in the offline mailbox.
 */
const APP_URL = 'https://app.persona.test';
const AUTH_LIMIT = 100;
const ENV = { APP_URL, AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_LIMIT), RATE_LIMIT_MULTIPLIER: '50' };
const VERIFY = 'account.email_verification_requested';
const CHANGE = 'account.email_change_requested';
const CHANGED = 'account.email_changed';

interface Mail {
  id: string;
  to: string;
  template: string;
  subject: string;
  text: string;
  links: string[];
}

describe('email verification and email change', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, ENV);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  /** Every message the dev mailbox holds for `to` of this template, newest first. */
  async function mails(to: string, template: string): Promise<Mail[]> {
    const res = await api(server).get('/dev/mailbox').query({ to });
    expect(res.status).toBe(200);
    return (res.body.data as Mail[]).filter((m) => m.template === template);
  }
  const waitForMails = (to: string, template: string, count: number) =>
    waitFor(async () => {
      const found = await mails(to, template);
      return found.length >= count ? found : null;
    }, 15_000, `${count} ${template} mail(s) to ${to}`);

  const verifyWith = (token: unknown) => api(server).post('/auth/verify-email').send({ token });
  const me = async (user: TestUser) => (await api(server).get('/auth/me').set(user.auth)).body.user;
  const refusal = (res: { status: number; body: { code?: string; message?: string } }) => ({ status: res.status, code: res.body.code, message: res.body.message });

  it('starts a new account unverified, mails one verification link to APP_URL, and the link verifies it once', async () => {
    const user = await registerUser(server, {}, { verified: false });
    expect(user.user.email_verified).toBe(false);
    expect((await me(user)).email_verified).toBe(false);

    const [mail] = await waitForMails(user.user.email, VERIFY, 1);
    expect(mail.links[0]).toMatch(new RegExp(`^${APP_URL}/verify-email\\?token=[A-Za-z0-9_-]{43}$`));
    const token = tokenFromLink(mail.links[0]);

    const ok = await verifyWith(token);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ purpose: 'verify', email: user.user.email, email_verified: true });
    expect((await me(user)).email_verified).toBe(true);
    // The sign-in answer says so too.
    const login = await api(server).post('/auth/login').send({ email: user.user.email, password: 'correct-horse-battery' });
    expect(login.body.user.email_verified).toBe(true);

    // Single use, and still exactly one message.
    const again = await verifyWith(token);
    expect([again.status, again.body.code]).toEqual([400, 'invalid_verification_token']);
    expect(await mails(user.user.email, VERIFY)).toHaveLength(1);
  });

  it('knows the bootstrap admin as verified', async () => {
    const admin = await loginAdmin(server);
    const res = await api(server).get('/auth/me').set(admin);
    expect([res.body.user.email, res.body.user.email_verified]).toEqual([ADMIN_EMAIL, true]);
  });

  it('refuses publishing, scheduling, buying and API keys with 403 email_not_verified until the same session verifies', async () => {
    const user = await registerUser(server, {}, { verified: false });
    await setPlan(server, await loginAdmin(server), user.workspace.id, 'agency');
    const gated = [
      () => api(server).post('/schedule/generate').set(user.auth).send({ character_id: missingId('char'), start_date: '2030-01-01' }),
      () => api(server).post(`/schedule/${missingId('sch')}/publish-now`).set(user.auth).send({}),
      () => api(server).post(`/content/${missingId('cnt')}/schedule`).set(user.auth).send({ scheduled_at: '2030-01-01T10:00:00Z' }),
      () => api(server).post(`/marketplace/${missingId('mkt')}/purchase`).set(user.auth).send({}),
      () => api(server).post('/api-keys').set(user.auth).send({ name: 'ci', scopes: ['content:publish'] }),
    ];
    for (const call of gated) {
      const res = await call();
      expect(refusal(res)).toEqual({ status: 403, code: 'email_not_verified', message: expect.stringMatching(/verify your email/i) });
    }
    // Everything else works unverified: the product is usable.
    expect((await api(server).get('/schedule').set(user.auth)).status).toBe(200);
    expect((await api(server).get('/marketplace').set(user.auth)).status).toBe(200);
    expect((await api(server).post('/characters').set(user.auth).send({})).status).not.toBe(403);

    await verifyEmail(server, user.user.email);
    // The same access token: the session's remembered caller is read again once the address is verified.
    const after = await Promise.all(gated.map((call) => call()));
    expect(after.map((r) => r.status)).toEqual([404, 404, 404, 404, 201]);
    // The key its verified maker made works on the public API (no email gate there).
    const key = after[4].body.key as string;
    const publish = await api(server).post('/public/publish').set({ Authorization: `Bearer ${key}` }).send({ content_id: missingId('cnt'), platform: 'instagram' });
    expect(publish.status).not.toBe(403);
  });

  it('resends on request up to 5 mails an hour (the sign-up one counted), then 429 with Retry-After; 409 once verified', async () => {
    const user = await registerUser(server, {}, { verified: false });
    expect((await api(server).post('/auth/verify-email/request')).status).toBe(401);
    for (let i = 0; i < 4; i += 1) {
      const res = await api(server).post('/auth/verify-email/request').set(user.auth);
      expect(res.status).toBe(202);
      expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    }
    const limited = await api(server).post('/auth/verify-email/request').set(user.auth);
    expect([limited.status, limited.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);

    const sent = await waitForMails(user.user.email, VERIFY, 5);
    expect(sent).toHaveLength(5);
    expect(new Set(sent.map((m) => m.links[0])).size).toBe(5);
    // An older link still works (mails arrive in any order); once verified, every other link is spent.
    const [newest, ...older] = sent.map((m) => tokenFromLink(m.links[0]));
    expect((await verifyWith(older[older.length - 1])).status).toBe(200);
    expect(refusal(await verifyWith(newest))).toMatchObject({ status: 400, code: 'invalid_verification_token' });

    const verified = await api(server).post('/auth/verify-email/request').set(user.auth);
    expect([verified.status, verified.body.code]).toEqual([409, 'email_already_verified']);
  });

  it('answers guessed, malformed, used and foreign-shaped tokens alike, and takes JSON only', async () => {
    const user = await registerUser(server, {}, { verified: false });
    const token = tokenFromLink(await mailboxLink(server, user.user.email, VERIFY));

    const guessed = refusal(await verifyWith(randomBytes(32).toString('base64url')));
    expect(guessed).toEqual({ status: 400, code: 'invalid_verification_token', message: expect.any(String) });
    // Near misses and other secrets of the right shape prove nothing either.
    expect(refusal(await verifyWith(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`))).toEqual(guessed);
    expect(refusal(await verifyWith(user.refreshToken))).toEqual(guessed);
    expect(refusal(await verifyWith("' OR 1=1 --"))).toEqual(guessed);

    for (const body of [{}, { token: '' }, { token: 42 }, { token: 'x'.repeat(257) }, { token, extra: true }]) {
      const res = await api(server).post('/auth/verify-email').send(body);
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    }
    // A form post (what a cross-site page can send without CORS) is not accepted, and spends nothing.
    const form = await api(server).post('/auth/verify-email').type('form').send({ token });
    expect([form.status, form.body.code]).toEqual([415, 'unsupported_media_type']);
    const text = await api(server).post('/auth/verify-email').set('Content-Type', 'text/plain').send(JSON.stringify({ token }));
    expect(text.status).toBeGreaterThanOrEqual(400);
    expect(text.status).toBeLessThan(500);
    expect((await me(user)).email_verified).toBe(false);

    expect((await verifyWith(token)).status).toBe(200);
    expect(refusal(await verifyWith(token))).toEqual(guessed);
  });

  it('changes the email only once the link mailed to the new address is opened, and tells the old address', async () => {
    const user = await registerUser(server);
    const oldEmail = user.user.email;
    const newEmail = uniqueEmail('moved');

    const asked = await api(server).put('/auth/email').set(user.auth).send({ password: 'correct-horse-battery', email: `  ${newEmail.toUpperCase()} ` });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ pending_email: newEmail, expires_at: expect.any(String) });

    const [mail] = await waitForMails(newEmail, CHANGE, 1);
    expect(mail.links[0]).toMatch(new RegExp(`^${APP_URL}/confirm-email\\?token=[A-Za-z0-9_-]{43}$`));
    // Nothing moved yet: the old address still signs in, the new one does not.
    expect((await me(user)).email).toBe(oldEmail);
    expect((await api(server).post('/auth/login').send({ email: newEmail, password: 'correct-horse-battery' })).status).toBe(401);

    const confirmed = await verifyWith(tokenFromLink(mail.links[0]));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ purpose: 'change', email: newEmail, email_verified: true });
    expect(await me(user)).toMatchObject({ email: newEmail, email_verified: true });
    expect((await api(server).post('/auth/login').send({ email: newEmail, password: 'correct-horse-battery' })).status).toBe(200);
    expect((await api(server).post('/auth/login').send({ email: oldEmail, password: 'correct-horse-battery' })).status).toBe(401);

    const [notice] = await waitForMails(oldEmail, CHANGED, 1);
    expect(notice.text).toContain(newEmail);
    expect(await mails(newEmail, CHANGE)).toHaveLength(1);
    expect(await mails(oldEmail, CHANGED)).toHaveLength(1);
    expect(refusal(await verifyWith(tokenFromLink(mail.links[0])))).toMatchObject({ status: 400, code: 'invalid_verification_token' });
  });

  it('refuses a wrong password (403), a taken email in any case (409), bad input (400) and no session (401)', async () => {
    const user = await registerUser(server);
    const other = await registerUser(server);
    const put = (body: object, auth = user.auth) => api(server).put('/auth/email').set(auth).send(body);

    const wrong = await put({ password: 'not-my-password', email: uniqueEmail('x') });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'current_password_incorrect']);
    const taken = await put({ password: 'correct-horse-battery', email: other.user.email.toUpperCase() });
    expect([taken.status, taken.body.code]).toEqual([409, 'email_taken']);
    for (const body of [{ password: 'correct-horse-battery' }, { password: 'correct-horse-battery', email: 'not-an-email' }, { email: uniqueEmail('x') }, { password: 'correct-horse-battery', email: user.user.email }, { password: 'correct-horse-battery', email: uniqueEmail('x'), role: 'admin' }]) {
      const res = await put(body);
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    }
    expect((await api(server).put('/auth/email').send({ password: 'correct-horse-battery', email: uniqueEmail('x') })).status).toBe(401);
    // None of these sent anything or moved anything.
    expect((await me(user)).email).toBe(user.user.email);
  });

  it('lets only the newest pending change complete, re-checks the address is free, and verifies an unverified account that moves', async () => {
    const user = await registerUser(server, {}, { verified: false });
    const first = uniqueEmail('first');
    const second = uniqueEmail('second');
    for (const email of [first, second]) {
      expect((await api(server).put('/auth/email').set(user.auth).send({ password: 'correct-horse-battery', email })).status).toBe(202);
    }
    const firstToken = tokenFromLink((await waitForMails(first, CHANGE, 1))[0].links[0]);
    const secondToken = tokenFromLink((await waitForMails(second, CHANGE, 1))[0].links[0]);
    expect(refusal(await verifyWith(firstToken))).toMatchObject({ status: 400, code: 'invalid_verification_token' });

    // Someone signs up with the pending address before the link is opened: the change is refused and nothing moves.
    await registerUser(server, { email: second.toUpperCase() }, { verified: false });
    const raced = await verifyWith(secondToken);
    expect([raced.status, raced.body.code]).toEqual([409, 'email_taken']);
    expect((await me(user)).email).toBe(user.user.email);

    const third = uniqueEmail('third');
    expect((await api(server).put('/auth/email').set(user.auth).send({ password: 'correct-horse-battery', email: third })).status).toBe(202);
    expect((await verifyWith(tokenFromLink((await waitForMails(third, CHANGE, 1))[0].links[0]))).status).toBe(200);
    expect(await me(user)).toMatchObject({ email: third, email_verified: true });
    // The verification mailed to the address it left proves nothing now.
    const stale = tokenFromLink((await waitForMails(user.user.email, VERIFY, 1))[0].links[0]);
    expect(refusal(await verifyWith(stale))).toMatchObject({ status: 400, code: 'invalid_verification_token' });
    expect((await api(server).post('/schedule/generate').set(user.auth).send({})).status).toBe(400);
  });

  it('limits email change requests per user (5 an hour) with Retry-After', async () => {
    const user = await registerUser(server);
    for (let i = 0; i < 5; i += 1) {
      expect((await api(server).put('/auth/email').set(user.auth).send({ password: 'correct-horse-battery', email: uniqueEmail('many') })).status).toBe(202);
    }
    const limited = await api(server).put('/auth/email').set(user.auth).send({ password: 'correct-horse-battery', email: uniqueEmail('many') });
    expect([limited.status, limited.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('limits password guesses through PUT /auth/email like failed sign-ins', async () => {
    const user = await registerUser(server);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      statuses.push((await api(server).put('/auth/email').set(user.auth).send({ password: `guess-${i}-wrong`, email: uniqueEmail('g') })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses[10]).toBe(429);
    // Even the right password waits now.
    expect((await api(server).put('/auth/email').set(user.auth).send({ password: 'correct-horse-battery', email: uniqueEmail('g') })).status).toBe(429);
  });

  // Last: it spends this address's sign-in budget for the rest of the minute.
  it('rate-limits token guessing per address with the sign-in budget', async () => {
    let limited: { status: number; headers: Record<string, string> } | undefined;
    for (let i = 0; i <= AUTH_LIMIT && !limited; i += 1) {
      const res = await verifyWith(randomBytes(32).toString('base64url'));
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(400);
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0);
  });
});
