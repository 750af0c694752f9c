import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, registerUser, uniqueEmail, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { closedWithin, authedSocket, type TestSocket } from '../helpers/socket.js';

const APP_URL = 'http://app.e2e.test';
const PASSWORD = 'correct-horse-battery';
const NEW_PASSWORD = 'lantern monkey orbit';
const RESET_REQUESTED = 'account.password_reset_requested';
const PASSWORD_CHANGED = 'account.password_changed';
const UNAUTHORIZED_CLOSE = 4401;
/** Revocations move the access stamp, which open sockets read every second (socket-access.e2e-spec). */
const STAMPED_CLOSE_MS = 4_000;
/** The documented defaults (docs/accounts-passwords.md). */
const PER_EMAIL = 5;
const PER_IP = 20;
const RESET_FAILURES_PER_IP = 10;
const CHANGE_FAILURES = 5;

interface MailboxMessage {
  id: string;
  to: string;
  template: string;
  links: string[];
}

/**
 * Messages of `template` to `email` in the development mailbox (the mail contract: newest first).
 * The same as `mailboxLink` in test/helpers/mail.ts once the notifications context lands.
 */
async function mailbox(server: TestServer, email: string, template: string): Promise<MailboxMessage[]> {
  const res = await api(server).get('/dev/mailbox').query({ to: email });
  if (res.status !== 200) return [];
  return (res.body.data as MailboxMessage[]).filter((m) => m.template === template);
}

async function mailedLinks(server: TestServer, email: string, template: string, count = 1): Promise<string[]> {
  const messages = await waitFor(async () => {
    const found = await mailbox(server, email, template);
    return found.length >= count ? found : null;
  }, 20_000, `${count} ${template} mail(s) to ${email}`);
  return messages.map((m) => m.links[0]);
}

function tokenOf(link: string): string {
  const url = new URL(link);
  expect(`${url.origin}${url.pathname}`).toBe(`${APP_URL}/reset-password`);
  return url.searchParams.get('token')!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Each test speaks from its own client addresses (the server believes a loopback proxy), so the per-address budgets of one do not spend another's. */
let nextAddress = 0;
function newAddress(): string {
  nextAddress += 1;
  return `198.51.${Math.floor(nextAddress / 250)}.${(nextAddress % 250) + 1}`;
}

/** The answer without what differs on every request. */
const comparable = (res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }) => ({
  status: res.status,
  body: { ...res.body, request_id: undefined, details: res.body.details ? { ...(res.body.details), retry_after: undefined } : undefined },
  retryAfter: res.headers['retry-after'] === undefined ? 'absent' : 'set',
});

describe('password reset and change (docs/accounts-passwords.md)', () => {
  let backing: Backing;
  let server: TestServer;
  const sockets: TestSocket[] = [];

  const forgot = (email: string, ip = newAddress()) => api(server).post('/auth/password/forgot').set('X-Forwarded-For', ip).send({ email });
  const reset = (token: string, password: string, ip = newAddress()) =>
    api(server).post('/auth/password/reset').set('X-Forwarded-For', ip).send({ token, password });
  const login = (email: string, password: string) => api(server).post('/auth/login').set('X-Forwarded-For', newAddress()).send({ email, password });
  const me = (token: string) => api(server).get('/auth/me').set('Authorization', `Bearer ${token}`);
  const refresh = (refreshToken: string) => api(server).post('/auth/refresh').set('X-Forwarded-For', newAddress()).send({ refresh_token: refreshToken });
  const socketOf = async (token: string) => {
    const s = await authedSocket(server.wsUrl, token);
    sockets.push(s);
    expect(s.messages[0].type).toBe('auth.ok');
    return s;
  };
  const resetTokenFor = async (user: TestUser) => {
    expect((await forgot(user.user.email)).status).toBe(202);
    return tokenOf((await mailedLinks(server, user.user.email, RESET_REQUESTED))[0]);
  };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, {
      APP_URL,
      TRUST_PROXY: 'loopback',
      RUN_JOBS_IN_API: 'true',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      RATE_LIMIT_MULTIPLIER: '20',
      SOCKET_RECHECK_SECONDS: '8',
    });
  }, 90_000);
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await server?.stop();
    await backing?.cleanup();
  });

  describe('forgot → mailed link → reset', () => {
    it('mails one link to a known address; its token sets the password once; every session, refresh token and socket of the account ends', async () => {
      const user = await registerUser(server);
      const second = await login(user.user.email, PASSWORD);
      expect(second.status).toBe(200);
      const [socketA, socketB] = [await socketOf(user.token), await socketOf(second.body.access_token as string)];

      const asked = await forgot(user.user.email);
      expect(asked.status).toBe(202);
      expect(asked.headers['cache-control']).toBe('no-store');
      const links = await mailedLinks(server, user.user.email, RESET_REQUESTED);
      expect(links).toHaveLength(1);
      const token = tokenOf(links[0]);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The API never hands the token out: it is only in the mail.
      expect(JSON.stringify(asked.body)).not.toContain(token);

      expect((await reset(token, NEW_PASSWORD)).status).toBe(204);
      for (const s of [socketA, socketB]) expect(await closedWithin(s, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
      for (const access of [user.token, second.body.access_token as string]) expect((await me(access)).status).toBe(401);
      for (const old of [user.refreshToken, second.body.refresh_token as string]) {
        expect((await refresh(old)).body.code).toBe('invalid_refresh_token');
      }
      expect((await login(user.user.email, PASSWORD)).body.code).toBe('invalid_credentials');
      expect((await login(user.user.email, NEW_PASSWORD)).status).toBe(200);

      // Once: the same token again, even with another password, is refused with the one code.
      const again = await reset(token, 'another fine passphrase');
      expect([again.status, again.body.code]).toEqual([400, 'invalid_reset_token']);
      expect((await login(user.user.email, NEW_PASSWORD)).status).toBe(200);

      // The account is told, once; the reset mail was sent once.
      await mailedLinks(server, user.user.email, PASSWORD_CHANGED);
      expect(await mailbox(server, user.user.email, PASSWORD_CHANGED)).toHaveLength(1);
      expect(await mailbox(server, user.user.email, RESET_REQUESTED)).toHaveLength(1);
    });

    it('a newer request replaces the older link', async () => {
      const user = await registerUser(server);
      expect((await forgot(user.user.email)).status).toBe(202);
      const [first] = await mailedLinks(server, user.user.email, RESET_REQUESTED, 1);
      expect((await forgot(user.user.email)).status).toBe(202);
      const [newest, older] = await mailedLinks(server, user.user.email, RESET_REQUESTED, 2);
      expect(older).toBe(first);
      expect((await reset(tokenOf(first), NEW_PASSWORD)).body.code).toBe('invalid_reset_token');
      expect((await reset(tokenOf(newest), NEW_PASSWORD)).status).toBe(204);
    });

    it('refuses a guessable new password as registration does, and the token stays usable', async () => {
      const user = await registerUser(server);
      const token = await resetTokenFor(user);
      const weak = await reset(token, 'Password123!');
      expect([weak.status, weak.body.code]).toEqual([400, 'validation_failed']);
      expect(weak.body.details).toEqual([{ field: 'password', message: expect.stringMatching(/^password is too common/) }]);
      const short = await reset(token, 'short');
      expect([short.status, short.body.code]).toEqual([400, 'validation_failed']);
      expect((await reset(token, NEW_PASSWORD)).status).toBe(204);
    });

    it('sends nothing for an unknown address, and answers it exactly as a known one', async () => {
      const known = await registerUser(server);
      const unknown = uniqueEmail('nobody');
      const [a, b] = [await forgot(known.user.email), await forgot(unknown)];
      expect(comparable(b)).toEqual(comparable(a));
      expect(a.body).toEqual({ message: expect.stringMatching(/^If an account uses this address/) });
      await mailedLinks(server, known.user.email, RESET_REQUESTED);
      expect(await mailbox(server, unknown, RESET_REQUESTED)).toEqual([]);
    });

    it('answers known and unknown addresses in the same time class (medians of 20 each within 0.5x–2x)', async () => {
      const known = await Promise.all(Array.from({ length: 20 }, () => registerUser(server)));
      const timings = { known: [] as number[], unknown: [] as number[] };
      for (let i = 0; i < 20; i += 1) {
        for (const [kind, email] of [['known', known[i].user.email], ['unknown', uniqueEmail('ghost')]] as const) {
          const started = process.hrtime.bigint();
          const res = await forgot(email);
          timings[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
          expect(res.status).toBe(202);
        }
      }
      const [k, u] = [median(timings.known), median(timings.unknown)];
      console.log(`forgot-password medians: known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms (ratio ${(u / k).toFixed(2)})`);
      expect(u / k).toBeGreaterThan(0.5);
      expect(u / k).toBeLessThan(2);
    }, 60_000);
  });

  describe('limits and probes', () => {
    it(`limits requests per address to ${PER_EMAIL} an hour with 429 and Retry-After, known and unknown alike`, async () => {
      const known = await registerUser(server);
      const answers: Record<string, ReturnType<typeof comparable>[]> = { known: [], unknown: [] };
      for (const [kind, email] of [['known', known.user.email], ['unknown', uniqueEmail('ghost')]] as const) {
        for (let i = 0; i <= PER_EMAIL; i += 1) {
          const res = await forgot(email);
          answers[kind].push(comparable(res));
          if (i === PER_EMAIL) {
            expect([res.status, res.body.code]).toEqual([429, 'rate_limited']);
            expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
            expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(3600);
          } else {
            expect(res.status).toBe(202);
          }
        }
      }
      expect(answers.unknown).toEqual(answers.known);
      // The address is what is limited: another email is served, and the limited one got 5 mails, not 6.
      expect((await forgot(uniqueEmail('other'))).status).toBe(202);
      await mailedLinks(server, known.user.email, RESET_REQUESTED, PER_EMAIL);
      expect(await mailbox(server, known.user.email, RESET_REQUESTED)).toHaveLength(PER_EMAIL);
    });

    it(`limits requests per client address to ${PER_IP} an hour, whatever the emails`, async () => {
      const ip = newAddress();
      for (let i = 0; i < PER_IP; i += 1) expect((await forgot(uniqueEmail('spray'), ip)).status).toBe(202);
      const refused = await forgot(uniqueEmail('spray'), ip);
      expect([refused.status, refused.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await forgot(uniqueEmail('spray'), newAddress())).status).toBe(202);
    }, 30_000);

    it(`refuses guessed tokens with one code, and closes the address after ${RESET_FAILURES_PER_IP} of them (429, Retry-After)`, async () => {
      const ip = newAddress();
      const user = await registerUser(server);
      const guesses = [randomBytes(32).toString('base64url'), 'x', 'a'.repeat(256), '../../etc/passwd', "' OR 1=1 --"];
      for (let i = 0; i < RESET_FAILURES_PER_IP; i += 1) {
        const res = await reset(guesses[i % guesses.length], NEW_PASSWORD, ip);
        expect([res.status, res.body.code]).toEqual([400, 'invalid_reset_token']);
      }
      const token = await resetTokenFor(user);
      const closed = await reset(token, NEW_PASSWORD, ip);
      expect([closed.status, closed.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(closed.headers['retry-after'])).toBeGreaterThan(0);
      // Nothing was spent: the real token still works from another address.
      expect((await reset(token, NEW_PASSWORD)).status).toBe(204);
    });

    it('refuses malformed bodies with 400 validation_failed, and non-JSON bodies', async () => {
      const bad = [
        ['/auth/password/forgot', {}],
        ['/auth/password/forgot', { email: 'not-an-email' }],
        ['/auth/password/forgot', { email: uniqueEmail(), extra: true }],
        ['/auth/password/reset', { password: NEW_PASSWORD }],
        ['/auth/password/reset', { token: 'x'.repeat(257), password: NEW_PASSWORD }],
        ['/auth/password/reset', { token: 'abc', password: 'x'.repeat(129) }],
        ['/auth/password/reset', { token: 'abc', password: NEW_PASSWORD, user_id: 'user_01ARZ3NDEKTSV4RRFFQ69G5FAV' }],
      ] as const;
      for (const [path, body] of bad) {
        const res = await api(server).post(path).set('X-Forwarded-For', newAddress()).send(body);
        expect([path, res.status, res.body.code]).toEqual([path, 400, 'validation_failed']);
      }
      // What a page on another site can post without a CORS preflight is refused: JSON only.
      const user = await registerUser(server);
      const asForm = [
        api(server).post('/auth/password/forgot').type('form').send({ email: user.user.email }),
        api(server).post('/auth/password/forgot').set('Content-Type', 'text/plain').send(JSON.stringify({ email: user.user.email })),
        api(server).post('/auth/password/reset').type('form').send({ token: 'abc', password: NEW_PASSWORD }),
        api(server).put('/auth/password').set(user.auth).type('form').send({ current_password: PASSWORD, password: NEW_PASSWORD }),
      ];
      for (const res of await Promise.all(asForm.map((r) => r.set('X-Forwarded-For', newAddress())))) {
        expect([res.status, res.body.code]).toEqual([415, 'unsupported_media_type']);
      }
      expect((await login(user.user.email, PASSWORD)).status).toBe(200);
    });
  });

  describe('PUT /auth/password', () => {
    const change = (token: string, body: Record<string, unknown>) => api(server).put('/auth/password').set('Authorization', `Bearer ${token}`).send(body);

    it('keeps the current session and ends the others (access, refresh, sockets); the old password stops working', async () => {
      const user = await registerUser(server);
      const other = await login(user.user.email, PASSWORD);
      const [mine, theirs] = [await socketOf(user.token), await socketOf(other.body.access_token as string)];

      const wrong = await change(user.token, { current_password: 'not-my-password', password: NEW_PASSWORD });
      expect([wrong.status, wrong.body.code]).toEqual([403, 'current_password_incorrect']);
      expect((await me(other.body.access_token as string)).status).toBe(200);

      expect((await change(user.token, { current_password: PASSWORD, password: NEW_PASSWORD })).status).toBe(204);
      expect(await closedWithin(theirs, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
      expect((await me(other.body.access_token as string)).status).toBe(401);
      expect((await refresh(other.body.refresh_token as string)).body.code).toBe('invalid_refresh_token');

      // This session goes on: its token, its refresh token and its socket.
      expect((await me(user.token)).status).toBe(200);
      const renewed = await refresh(user.refreshToken);
      expect(renewed.status).toBe(200);
      mine.send({ type: 'ping' });
      await mine.waitFor((m) => m.type === 'pong');

      expect((await login(user.user.email, PASSWORD)).body.code).toBe('invalid_credentials');
      expect((await login(user.user.email, NEW_PASSWORD)).status).toBe(200);
    });

    it('announces the change by mail, once', async () => {
      const user = await registerUser(server);
      expect((await change(user.token, { current_password: PASSWORD, password: NEW_PASSWORD })).status).toBe(204);
      await mailedLinks(server, user.user.email, PASSWORD_CHANGED);
      expect(await mailbox(server, user.user.email, PASSWORD_CHANGED)).toHaveLength(1);
    });

    it('a change ends a reset link still out', async () => {
      const user = await registerUser(server);
      const token = await resetTokenFor(user);
      expect((await change(user.token, { current_password: PASSWORD, password: NEW_PASSWORD })).status).toBe(204);
      expect((await reset(token, 'another fine passphrase')).body.code).toBe('invalid_reset_token');
    });

    it(`limits wrong current passwords to ${CHANGE_FAILURES} per user; past it even the right one waits (429, Retry-After)`, async () => {
      const user = await registerUser(server);
      for (let i = 0; i < CHANGE_FAILURES; i += 1) {
        expect((await change(user.token, { current_password: `wrong-${i}-password`, password: NEW_PASSWORD })).body.code).toBe('current_password_incorrect');
      }
      const limited = await change(user.token, { current_password: PASSWORD, password: NEW_PASSWORD });
      expect([limited.status, limited.body.code]).toEqual([429, 'rate_limited']);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await login(user.user.email, PASSWORD)).status).toBe(200);
      // Another user is not affected.
      const other = await registerUser(server);
      expect((await change(other.token, { current_password: PASSWORD, password: NEW_PASSWORD })).status).toBe(204);
    });

    it('refuses guessable and malformed new passwords, no session, and a bad token', async () => {
      const user = await registerUser(server);
      const weak = await change(user.token, { current_password: PASSWORD, password: 'Qwerty2024!' });
      expect([weak.status, weak.body.code]).toEqual([400, 'validation_failed']);
      const local = user.user.email.split('@')[0];
      const mine = await change(user.token, { current_password: PASSWORD, password: `${local.toUpperCase()}!2024` });
      expect([mine.status, mine.body.code]).toEqual([400, 'validation_failed']);
      for (const body of [{ password: NEW_PASSWORD }, { current_password: PASSWORD }, { current_password: PASSWORD, password: 'short' }, { current_password: PASSWORD, password: NEW_PASSWORD, email: 'x@y.z' }]) {
        expect((await change(user.token, body)).body.code).toBe('validation_failed');
      }
      expect((await api(server).put('/auth/password').send({ current_password: PASSWORD, password: NEW_PASSWORD })).status).toBe(401);
      expect((await change('not-a-token', { current_password: PASSWORD, password: NEW_PASSWORD })).status).toBe(401);
      // Nothing changed.
      expect((await login(user.user.email, PASSWORD)).status).toBe(200);
    });
  });
});

describe('an expired reset link (PASSWORD_RESET_TTL_MINUTES)', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    // 60 ms: the link has expired by the time the mail is read.
    server = await startServer(backing, { APP_URL, RUN_JOBS_IN_API: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '1000', PASSWORD_RESET_TTL_MINUTES: '0.001' });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('is refused with invalid_reset_token and changes nothing', async () => {
    const user = await registerUser(server);
    expect((await api(server).post('/auth/password/forgot').send({ email: user.user.email })).status).toBe(202);
    const answeredAt = Date.now(); // the token was issued before its answer
    const [link] = await mailedLinks(server, user.user.email, RESET_REQUESTED);
    await waitFor(async () => Date.now() - answeredAt > 200, 5_000, 'the token to outlive its 60 ms');
    const res = await api(server).post('/auth/password/reset').send({ token: tokenOf(link), password: NEW_PASSWORD });
    expect([res.status, res.body.code]).toEqual([400, 'invalid_reset_token']);
    expect((await api(server).get('/auth/me').set(user.auth)).status).toBe(200);
    expect((await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD })).status).toBe(200);
  });
});
