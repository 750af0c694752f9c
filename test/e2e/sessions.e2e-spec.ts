import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { api, loginAdmin, missingId, registerUser, setPlan, uniqueEmail, type TestUser } from '../helpers/api.js';
import { inviteAndAccept, switchTo } from '../helpers/invitations.js';
import { createBacking, startServer, waitFor, type Backing, type TestServer } from '../helpers/server.js';
import { mailbox, type MailboxMessage } from '../helpers/mail.js';
import { closedWithin, authedSocket, type TestSocket } from '../helpers/socket.js';

const PASSWORD = 'correct-horse-battery';
const APP_URL = 'http://app.sessions.e2e.test';
const UNAUTHORIZED_CLOSE = 4401;
/** Revocation moves the workspace's access stamp, which the sockets' watch reads every second. */
const STAMPED_CLOSE_MS = 4_000;

const UA = {
  firefoxMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  edgeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};

type Auth = { Authorization: string };
const bearer = (token: string): Auth => ({ Authorization: `Bearer ${token}` });

interface Session {
  id: string;
  device: string;
  ip_prefix: string | null;
  workspace_id: string;
  created_at: string;
  last_used_at: string;
  current: boolean;
}

function expectError(res: Response, status: number, code: string): void {
  expect([res.status, res.body.code]).toEqual([status, code]);
}

describe('sessions: the list, revocation and new-device sign-in alerts', () => {
  let backing: Backing;
  let server: TestServer;
  const sockets: TestSocket[] = [];

  /** Signs in from a device: a User-Agent and, through the trusted loopback proxy, an address. */
  const signIn = async (email: string, userAgent: string, ip = '127.0.0.1'): Promise<{ auth: Auth; token: string; refreshToken: string }> => {
    const res = await api(server).post('/auth/login').set('User-Agent', userAgent).set('X-Forwarded-For', ip).send({ email, password: PASSWORD });
    expect(res.status).toBe(200);
    return { auth: bearer(res.body.access_token), token: res.body.access_token, refreshToken: res.body.refresh_token };
  };
  const list = async (auth: Auth, query = ''): Promise<Response> => api(server).get(`/auth/sessions${query}`).set(auth);
  const sessionsOf = async (auth: Auth): Promise<Session[]> => {
    const res = await list(auth, '?page_size=100');
    expect(res.status).toBe(200);
    return res.body.sessions as Session[];
  };
  const currentId = async (auth: Auth): Promise<string> => (await sessionsOf(auth)).find((s) => s.current)!.id;
  const alertsTo = async (email: string): Promise<MailboxMessage[]> => (await mailbox(server, email)).filter((m) => m.template === 'account.new_sign_in');
  const registerFrom = async (userAgent: string, ip = '127.0.0.1'): Promise<TestUser> => {
    const email = uniqueEmail('ses');
    const res = await api(server)
      .post('/auth/register')
      .set('User-Agent', userAgent)
      .set('X-Forwarded-For', ip)
      .send({ email, password: PASSWORD, accept_terms: true, accept_privacy: true });
    expect(res.status).toBe(201);
    const me = await api(server).get('/auth/me').set(bearer(res.body.access_token));
    return { token: res.body.access_token, refreshToken: res.body.refresh_token, user: res.body.user, workspace: me.body.workspace, auth: bearer(res.body.access_token) };
  };

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, {
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      RUN_JOBS_IN_API: 'true',
      TRUST_PROXY: 'loopback',
      APP_URL,
    });
  }, 90_000);
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await server?.stop();
    await backing?.cleanup();
  });

  describe('GET /auth/sessions', () => {
    it("lists the user's live sessions with device names, network prefixes and the current one, and nothing of another user", async () => {
      const user = await registerFrom(UA.firefoxMac, '203.0.113.77');
      const phone = await signIn(user.user.email, UA.chromeAndroid, '2001:db8:abcd:12::1');
      const laptop = await signIn(user.user.email, UA.edgeWindows, '198.51.100.9');
      const stranger = await registerUser(server);

      const res = await list(phone.auth);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({ sessions: expect.any(Array), page: 1, page_size: 20, total: 3 });
      const sessions = res.body.sessions as Session[];
      const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(sessions).toEqual(
        expect.arrayContaining([
          { id: expect.stringMatching(/^ses_[0-9A-Z]{26}$/), device: 'Firefox on macOS', ip_prefix: '203.0.113.0/24', workspace_id: user.workspace.id, created_at: iso, last_used_at: iso, current: false },
          { id: expect.any(String), device: 'Chrome on Android', ip_prefix: '2001:db8:abcd::/48', workspace_id: user.workspace.id, created_at: iso, last_used_at: iso, current: true },
          { id: expect.any(String), device: 'Edge on Windows', ip_prefix: '198.51.100.0/24', workspace_id: user.workspace.id, created_at: iso, last_used_at: iso, current: false },
        ]),
      );
      // Most recently used first; the full address never appears.
      expect(sessions.map((s) => s.device)).toEqual(['Edge on Windows', 'Chrome on Android', 'Firefox on macOS']);
      expect(JSON.stringify(res.body)).not.toMatch(/203\.0\.113\.77|198\.51\.100\.9|abcd:12/);
      // Another session of the same user sees the same list with its own flag.
      expect((await sessionsOf(laptop.auth)).filter((s) => s.current).map((s) => s.device)).toEqual(['Edge on Windows']);
      // The stranger sees only their own.
      expect((await sessionsOf(stranger.auth)).map((s) => s.current)).toEqual([true]);
    });

    it('pages like every list, and refuses bad paging and unknown parameters with 400', async () => {
      const user = await registerFrom(UA.firefoxMac);
      await signIn(user.user.email, UA.chromeAndroid);
      await signIn(user.user.email, UA.edgeWindows);
      const first = await list(user.auth, '?page=1&page_size=2');
      const second = await list(user.auth, '?page=2&page_size=2');
      expect([first.body.sessions.length, first.body.total, first.body.page_size]).toEqual([2, 3, 2]);
      expect([second.body.sessions.length, second.body.total, second.body.page]).toEqual([1, 3, 2]);
      const ids = [...first.body.sessions, ...second.body.sessions].map((s: Session) => s.id);
      expect(new Set(ids).size).toBe(3);
      expect((await list(user.auth, '?page=9')).body.sessions).toEqual([]);

      for (const bad of ['?page=0', '?page_size=101', '?page=abc', '?page=1000001', '?user_id=x', '?workspace_id=ws_1']) {
        const res = await list(user.auth, bad);
        expectError(res, 400, 'validation_failed');
      }
    });

    it('moves last_used_at on a refresh, never on an ordinary request', async () => {
      const user = await registerFrom(UA.firefoxMac);
      const other = await signIn(user.user.email, UA.chromeAndroid);
      const before = (await sessionsOf(user.auth)).find((s) => s.device === 'Chrome on Android')!;
      expect((await api(server).get('/auth/me').set(other.auth)).status).toBe(200);
      expect((await sessionsOf(user.auth)).find((s) => s.id === before.id)!.last_used_at).toBe(before.last_used_at);

      const refreshed = await api(server).post('/auth/refresh').send({ refresh_token: other.refreshToken });
      expect(refreshed.status).toBe(200);
      const after = (await sessionsOf(user.auth)).find((s) => s.id === before.id)!;
      expect(Date.parse(after.last_used_at)).toBeGreaterThan(Date.parse(before.last_used_at));
      expect(after.created_at).toBe(before.created_at);
    });

    it('refuses no token, a bad token and an API key', async () => {
      expectError(await api(server).get('/auth/sessions'), 401, 'unauthorized');
      expectError(await list(bearer('not-a-token')), 401, 'unauthorized');
      const owner = await registerUser(server);
      await setPlan(server, await loginAdmin(server), owner.workspace.id, 'agency');
      const key = await api(server).post('/api-keys').set(owner.auth).send({ name: 'k', scopes: ['characters:read'] });
      expect(key.status).toBe(201);
      expectError(await list(bearer(key.body.key)), 401, 'session_required');
      expectError(await api(server).post('/auth/sessions/revoke-others').set(bearer(key.body.key)), 401, 'session_required');
      expectError(await api(server).delete(`/auth/sessions/${missingId('ses')}`).set(bearer(key.body.key)), 401, 'session_required');
    });
  });

  describe('DELETE /auth/sessions/{id}', () => {
    it("ends another of the user's sessions: its access and refresh tokens fail and its socket closes at once; the caller's goes on", async () => {
      const user = await registerFrom(UA.firefoxMac);
      const phone = await signIn(user.user.email, UA.chromeAndroid);
      const phoneId = await currentId(phone.auth);
      const [phoneSocket, keptSocket] = await Promise.all([authedSocket(server.wsUrl, phone.token), authedSocket(server.wsUrl, user.token)]);
      sockets.push(phoneSocket, keptSocket);
      expect([phoneSocket.messages[0].type, keptSocket.messages[0].type]).toEqual(['auth.ok', 'auth.ok']);

      const res = await api(server).delete(`/auth/sessions/${phoneId}`).set(user.auth);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');

      expectError(await api(server).get('/auth/me').set(phone.auth), 401, 'unauthorized');
      expectError(await api(server).post('/auth/refresh').send({ refresh_token: phone.refreshToken }), 401, 'invalid_refresh_token');
      expect(await closedWithin(phoneSocket, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });

      expect((await api(server).get('/auth/me').set(user.auth)).status).toBe(200);
      expect((await sessionsOf(user.auth)).map((s) => s.device)).toEqual(['Firefox on macOS']);
      keptSocket.send({ type: 'ping' });
      await keptSocket.waitFor((m) => m.type === 'pong');

      // Audited like a logout, in the session's workspace, naming the session that ended it.
      const audit = await api(server).get(`/organizations/${user.workspace.id}/audit-log`).query({ action: 'auth.logout' }).set(user.auth);
      expect(audit.status).toBe(200);
      expect(audit.body.entries).toEqual([
        expect.objectContaining({ action: 'auth.logout', actor_user_id: user.user.id, target_type: 'session', target_id: phoneId, details: { revoked_by_session_id: await currentId(user.auth) } }),
      ]);

      // Ended already: the same 404 as a session that never was.
      expectError(await api(server).delete(`/auth/sessions/${phoneId}`).set(user.auth), 404, 'not_found');
    });

    it('ends the current session like a logout', async () => {
      const user = await registerFrom(UA.firefoxMac);
      const id = await currentId(user.auth);
      expect((await api(server).delete(`/auth/sessions/${id}`).set(user.auth)).status).toBe(204);
      expectError(await api(server).get('/auth/me').set(user.auth), 401, 'unauthorized');
      expectError(await api(server).post('/auth/refresh').send({ refresh_token: user.refreshToken }), 401, 'invalid_refresh_token');
    });

    it("answers 404 for another user's session, an unknown id and a malformed one, and ends nothing", async () => {
      const user = await registerFrom(UA.firefoxMac);
      const victim = await registerFrom(UA.chromeAndroid);
      const victimId = await currentId(victim.auth);
      for (const id of [victimId, missingId('ses'), 'not-an-id', missingId('user'), `${victimId.toLowerCase()}`, `${victimId}x`]) {
        expectError(await api(server).delete(`/auth/sessions/${encodeURIComponent(id)}`).set(user.auth), 404, 'not_found');
      }
      expect((await api(server).get('/auth/me').set(victim.auth)).status).toBe(200);
      expectError(await api(server).delete(`/auth/sessions/${victimId}`), 401, 'unauthorized');
    });
  });

  describe('POST /auth/sessions/revoke-others', () => {
    it('ends every other session of the user, in every workspace, and keeps the current one', async () => {
      const owner = await registerUser(server);
      await setPlan(server, await loginAdmin(server), owner.workspace.id, 'agency');
      const user = await registerFrom(UA.firefoxMac);
      await inviteAndAccept(server, owner.auth, owner.workspace.id, user, 'editor');
      const elsewhere = await switchTo(server, user.auth, owner.workspace.id);
      const phone = await signIn(user.user.email, UA.chromeAndroid);
      const laptop = await signIn(user.user.email, UA.edgeWindows);
      const elsewhereSocket = await authedSocket(server.wsUrl, elsewhere.Authorization.slice('Bearer '.length));
      sockets.push(elsewhereSocket);
      const before = await sessionsOf(laptop.auth);
      expect(before).toHaveLength(4);
      expect(before.filter((s) => s.workspace_id === owner.workspace.id)).toHaveLength(1);

      const res = await api(server).post('/auth/sessions/revoke-others').set(laptop.auth).send({});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ revoked: 3 });

      for (const auth of [user.auth, phone.auth, elsewhere]) expectError(await api(server).get('/auth/me').set(auth), 401, 'unauthorized');
      expectError(await api(server).post('/auth/refresh').send({ refresh_token: phone.refreshToken }), 401, 'invalid_refresh_token');
      expect(await closedWithin(elsewhereSocket, STAMPED_CLOSE_MS)).toEqual({ code: UNAUTHORIZED_CLOSE, reason: 'unauthorized' });
      const after = await sessionsOf(laptop.auth);
      expect(after.map((s) => [s.device, s.current])).toEqual([['Edge on Windows', true]]);

      expect((await api(server).post('/auth/sessions/revoke-others').set(laptop.auth)).body).toEqual({ revoked: 0 });
      // The owner's own session in that workspace was not the user's: it goes on.
      expect((await api(server).get('/auth/me').set(owner.auth)).status).toBe(200);
    });
  });

  describe('PUT /auth/preferences and new-device sign-in alerts', () => {
    it('stores the choice, shows it in the user body, and refuses anything but a boolean', async () => {
      const user = await registerFrom(UA.firefoxMac);
      expect(user.user).toMatchObject({ sign_in_alerts: false });
      const on = await api(server).put('/auth/preferences').set(user.auth).send({ sign_in_alerts: true });
      expect(on.status).toBe(200);
      expect(on.body.user).toMatchObject({ id: user.user.id, email: user.user.email, sign_in_alerts: true });
      expect((await api(server).get('/auth/me').set(user.auth)).body.user.sign_in_alerts).toBe(true);
      const login = await api(server).post('/auth/login').send({ email: user.user.email, password: PASSWORD });
      expect(login.body.user.sign_in_alerts).toBe(true);

      for (const body of [{}, { sign_in_alerts: 'true' }, { sign_in_alerts: 1 }, { sign_in_alerts: null }, { sign_in_alerts: false, email: 'x@y.z' }]) {
        expectError(await api(server).put('/auth/preferences').set(user.auth).send(body), 400, 'validation_failed');
      }
      expectError(await api(server).put('/auth/preferences').send({ sign_in_alerts: false }), 401, 'unauthorized');
      expect((await api(server).put('/auth/preferences').set(user.auth).send({ sign_in_alerts: false })).body.user.sign_in_alerts).toBe(false);
    });

    it('mails a sign-in from a new device only when the user asked, and never for a known device', async () => {
      const user = await registerFrom(UA.firefoxMac, '203.0.113.10');
      const email = user.user.email;
      // Off (the default): a new device sends nothing.
      await signIn(email, UA.chromeWindows, '203.0.113.10');
      expect((await api(server).put('/auth/preferences').set(user.auth).send({ sign_in_alerts: true })).status).toBe(200);

      // Known devices: the registration's (another address in the same /24, a newer version) and the one used while alerts were off.
      await signIn(email, UA.firefoxMac.replaceAll('121.0', '122.0'), '203.0.113.99');
      await signIn(email, UA.chromeWindows, '203.0.113.10');
      // New: another browser and OS from another network.
      await signIn(email, UA.safariIphone, '198.51.100.7');

      const [alert] = await waitFor(async () => {
        const found = await alertsTo(email);
        return found.length > 0 ? found : null;
      }, 20_000, 'the new-device alert');
      expect(alert).toMatchObject({ to: email, template: 'account.new_sign_in' });
      expect(alert.text).toContain('Safari on iOS');
      expect(alert.links).toContain(`${APP_URL}/settings/security`);

      // A known device again, then the same new device once more (now known): still exactly one alert.
      await signIn(email, UA.firefoxMac, '203.0.113.10');
      await signIn(email, UA.safariIphone, '198.51.100.200');
      // Another new device is the marker that every earlier sign-in's mail would have been sent by now.
      await signIn(email, UA.chromeAndroid, '192.0.2.5');
      const all = await waitFor(async () => {
        const found = await alertsTo(email);
        return found.length >= 2 ? found : null;
      }, 20_000, 'the second new-device alert');
      expect(all).toHaveLength(2);
      expect(all[0].text).toContain('Chrome on Android');
    });

    it('never alerts on registration, and the same device from another network is new', async () => {
      const user = await registerFrom(UA.firefoxMac, '203.0.113.10');
      expect((await api(server).put('/auth/preferences').set(user.auth).send({ sign_in_alerts: true })).status).toBe(200);
      await signIn(user.user.email, UA.firefoxMac, '192.0.2.44');
      const alerts = await waitFor(async () => {
        const found = await alertsTo(user.user.email);
        return found.length > 0 ? found : null;
      }, 20_000, 'the alert for a new network');
      expect(alerts).toHaveLength(1);
      expect(alerts[0].text).toContain('Firefox on macOS');
    });
  });

  describe('rate limits', () => {
    it("counts the session routes against the workspace's window: past it, 429 rate_limited", async () => {
      const user = await registerFrom(UA.firefoxMac);
      let probe = await list(user.auth);
      // Fixed windows: make sure the burst does not straddle a boundary.
      const reset = Number(probe.headers['x-ratelimit-reset']);
      if (reset < 20) {
        const next = Date.now() + reset * 1000;
        await waitFor(async () => Date.now() >= next, (reset + 5) * 1000, 'the next rate-limit window');
        probe = await list(user.auth);
      }
      const remaining = Number(probe.headers['x-ratelimit-remaining']);
      expect(remaining).toBeGreaterThan(0);
      for (let i = 0; i < remaining; i += 1) expect((await list(user.auth)).status).toBe(200);
      const refused = await list(user.auth);
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expectError(await api(server).post('/auth/sessions/revoke-others').set(user.auth), 429, 'rate_limited');
    });
  });
});
