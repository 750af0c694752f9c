import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request, type IncomingHttpHeaders } from 'node:http';
import { api, registerUser, root, type TestUser } from '../helpers/api.js';
import { createBacking, startServer, withinOneWindow, type Backing, type TestServer } from '../helpers/server.js';

/** Standard Webhooks headers that pass the pre-check (fresh, all present); the signature itself is wrong. */
function plausibleWebhook(): Record<string, string> {
  return { 'webhook-id': `msg_${Date.now()}`, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,bm90IGEgcmVhbCBzaWduYXR1cmU=' };
}

/** A POST whose headers announce a body that is never sent; answers the status, headers and JSON body, if the server answers within 15 s. */
function headersOnlyPost(server: TestServer, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: 'POST', headers });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('no answer within 15 s: the server waited for the body'));
    }, 15_000);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown> });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.flushHeaders();
  });
}

/** Issue 12, items 1, 10 and part of 11: clear errors, bad input never a 500, edge settings. */
describe('input hardening', () => {
  let backing: Backing;
  let server: TestServer;
  let user: TestUser;
  let characterId: string;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing, { RATE_LIMIT_MULTIPLIER: '20', TRUST_PROXY: 'loopback' });
    user = await registerUser(server);
    const created = await api(server).post('/characters').set(user.auth).send({ name: 'Mila', niche: 'fitness' });
    expect(created.status).toBe(201);
    characterId = created.body.character.id;
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  /** The contract's error body, with no parser, stack or SQL text in it. */
  function expectErrorBody(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, status: number, code: string): void {
    expect({ status: res.status, code: res.body.code }).toEqual({ status, code });
    expect(res.body.statusCode).toBe(status);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(JSON.stringify(res.body)).not.toMatch(/stack|SQL|invalid byte|Unexpected token|position \d/i);
  }

  describe('clear errors (item 1)', () => {
    it('says a missing required field is required, one detail per field', async () => {
      const res = await api(server).post('/characters').set(user.auth).send({ name: 'X' });
      expectErrorBody(res, 400, 'validation_failed');
      expect(res.body.message).toBe('niche is required');
      expect(res.body.details).toEqual([{ field: 'niche', message: 'niche is required' }]);
    });

    it('names the kind of value wrong before its length', async () => {
      const res = await api(server).post('/characters').set(user.auth).send({ name: 'X', niche: 42 });
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ field: 'niche', message: 'niche must be a string' }]);
    });

    it('names the path the client sent for an unknown route, prefix included', async () => {
      const res = await api(server).get('/no/such/route?token=secret').set(user.auth);
      expectErrorBody(res, 404, 'not_found');
      expect(res.body.message).toBe('No route GET /api/v1/no/such/route.');
    });

    it('answers malformed JSON with a fixed message', async () => {
      const res = await api(server).post('/characters').set(user.auth).set('Content-Type', 'application/json').send('{"name": "X", }');
      expectErrorBody(res, 400, 'validation_failed');
      expect(res.body.message).toBe('The request body is not valid JSON.');
    });

    it('refuses JSON nested past 64 levels with 400, and takes 64', async () => {
      const deep = `{"name":${'['.repeat(5000)}${']'.repeat(5000)},"niche":"x"}`;
      const res = await api(server).post('/characters').set(user.auth).set('Content-Type', 'application/json').send(deep);
      expectErrorBody(res, 400, 'validation_failed');
      expect(res.body.message).toBe('JSON must not be nested deeper than 64 levels');
      expect(res.body.details).toEqual([{ field: 'name', message: 'JSON must not be nested deeper than 64 levels' }]);

      const objects = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      expectErrorBody(await api(server).post('/auth/login').set('Content-Type', 'application/json').send(objects), 400, 'validation_failed');

      // 64 levels pass the depth check and are judged by the DTO like any other wrong value.
      const atLimit = `{"name":${'['.repeat(63)}${']'.repeat(63)},"niche":"x"}`;
      const ok = await api(server).post('/characters').set(user.auth).set('Content-Type', 'application/json').send(atLimit);
      expect(ok.status).toBe(400);
      expect(ok.body.details).toEqual([{ field: 'name', message: 'name must be a string' }]);
    });
  });

  describe('bad input is never a 500 (item 10)', () => {
    it.each([
      ['character name', '/characters', () => ({ name: 'a\u0000b', niche: 'fitness' }), 'name'],
      ['nested character text', '/characters', () => ({ name: 'Ok', niche: 'fitness', identity: { location: 'Lis\u0000bon' } }), 'identity.location'],
      ['prompt', '/content/generate', () => ({ character_id: characterId, platform: 'instagram', prompt: 'beach\u0000day' }), 'prompt'],
      ['caption', '/content/generate', () => ({ character_id: characterId, platform: 'instagram', prompt: 'beach day', caption: 'hi\u0000' }), 'caption'],
      ['login email', '/auth/login', () => ({ email: 'a\u0000b@e2e.test', password: 'correct-horse-battery' }), 'email'],
      ['register email', '/auth/register', () => ({ email: 'c\u0000d@e2e.test', password: 'correct-horse-battery', accept_terms: true, accept_privacy: true }), 'email'],
      ['listing title', '/marketplace/listings', () => ({ character_id: characterId, price: 5, currency: 'credits', license_type: 'personal', title: 'T\u0000' }), 'title'],
      ['other control character', '/characters', () => ({ name: 'bell\u0007', niche: 'fitness' }), 'name'],
    ])('refuses a control character in the %s with 400', async (_what, path, body, field) => {
      const res = await api(server).post(path).set(user.auth).send(body());
      expectErrorBody(res, 400, 'validation_failed');
      expect(res.body.details).toEqual([{ field, message: `${field} must not contain control characters` }]);
    });

    it('lets line breaks and tabs through in body text', async () => {
      const res = await api(server).post('/content/generate').set(user.auth)
        .send({ character_id: characterId, platform: 'instagram', prompt: 'beach day', caption: 'line one\n\tline two' });
      expect(res.status).toBe(201);
      expect(res.body.item.caption).toBe('line one\n\tline two');
    });

    it.each([
      ['/marketplace?q=a%00b', 'q'],
      ['/marketplace?niche=a%00b', 'niche'],
      ['/marketplace?q=line%0Abreak', 'q'],
      ['/schedule/history?status=pending%00', 'status'],
    ])('refuses a control character in the query %s with 400', async (path, field) => {
      const res = await api(server).get(path).set(user.auth);
      expectErrorBody(res, 400, 'validation_failed');
      expect(res.body.details).toEqual([{ field, message: `${field} must not contain control characters` }]);
    });

    it.each(['/characters', '/billing/ledger', '/marketplace', '/marketplace/my-listings', '/content/queue', '/schedule', '/schedule/history'])(
      'refuses a page number past 1,000,000 on %s',
      async (path) => {
        const huge = await api(server).get(`${path}?page=99999999999999999999`).set(user.auth);
        expectErrorBody(huge, 400, 'validation_failed');
        expect(huge.body.details).toEqual([{ field: 'page', message: 'page must not be greater than 1000000' }]);
        expect((await api(server).get(`${path}?page=1000001`).set(user.auth)).status).toBe(400);
        for (const odd of ['1e3', '0x10', '2.5']) {
          expect((await api(server).get(`${path}?page=${odd}`).set(user.auth)).body.details).toEqual([{ field: 'page', message: 'page must be an integer number' }]);
        }
        const last = await api(server).get(`${path}?page=1000000`).set(user.auth);
        expect(last.status).toBe(200);
        expect(last.body.page).toBe(1000000);
      },
    );

    it('refuses numbers past a column range in query and body', async () => {
      const filter = await api(server).get('/marketplace?min_price=99999999999999999999').set(user.auth);
      expectErrorBody(filter, 400, 'validation_failed');
      expect(filter.body.details[0].field).toBe('min_price');
      expect((await api(server).get('/marketplace?max_price=3000000000').set(user.auth)).status).toBe(400);
      const price = await api(server).post('/marketplace/listings').set(user.auth)
        .send({ character_id: characterId, price: 1e300, currency: 'credits', license_type: 'personal' });
      expectErrorBody(price, 400, 'validation_failed');
      expect(price.body.details[0].field).toBe('price');
    });

    it('answers paths outside /api/v1 with the JSON error body', async () => {
      for (const path of ['/', '/foo', '/api', '/api/v2/characters', '/api/v1x']) {
        const res = await root(server).get(path);
        expectErrorBody(res, 404, 'not_found');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body.message).toBe(`No route GET ${path}.`);
      }
      expectErrorBody(await root(server).post('/foo').send({ a: 1 }), 404, 'not_found');
    });
  });

  describe('edge settings (item 11)', () => {
    it('marks API answers no-store, authenticated, open and failed alike, but not the docs', async () => {
      for (const res of [
        await api(server).get('/auth/me').set(user.auth),
        await api(server).get('/characters').set(user.auth),
        await api(server).get('/health'),
        await api(server).get('/characters'),
        await api(server).get('/no/such/route'),
      ]) {
        expect(res.headers['cache-control']).toBe('no-store');
      }
      const docs = await root(server).get('/api/docs-json');
      expect(docs.status).toBe(200);
      expect(docs.headers['cache-control']).toBeUndefined();
    });

    it('marks parser errors and 413 answers no-store too, JSON and webhook bodies alike', async () => {
      const malformed = await api(server).post('/characters').set(user.auth).set('Content-Type', 'application/json').send('{"name": "X", }');
      const tooBig = await api(server).post('/characters').set(user.auth).set('Content-Type', 'application/json').send(`{"name":"${'x'.repeat(1_100_000)}"}`);
      const webhookTooBig = await api(server).post('/webhooks/replicate/trainings').set(plausibleWebhook()).set('Content-Type', 'application/json').send(`{"logs":"${'x'.repeat(10_600_000)}"}`);
      expectErrorBody(malformed, 400, 'validation_failed');
      expectErrorBody(tooBig, 413, 'payload_too_large');
      expectErrorBody(webhookTooBig, 413, 'payload_too_large');
      for (const res of [malformed, tooBig, webhookTooBig]) expect(res.headers['cache-control']).toBe('no-store');
    });

    it.each([
      ['without signature headers', {}],
      ['with a stale timestamp', { ...plausibleWebhook(), 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) }],
    ])('refuses a webhook %s with 401 before reading its 9 MB body, and closes the connection', async (_what, headers) => {
      // Only the headers are sent: an answer at all proves the body was never waited for.
      const res = await headersOnlyPost(server, '/api/v1/webhooks/replicate/trainings', { ...headers, 'Content-Type': 'application/json', 'Content-Length': '9000000' });
      expect([res.status, res.body.code, res.headers.connection, res.headers['cache-control']]).toEqual([401, 'unauthorized', 'close', 'no-store']);
    });

    it('believes X-Forwarded-For from a loopback proxy with TRUST_PROXY=loopback', async () => {
      // 21 logins, one more than the per-address limit, each from its own forwarded address.
      for (let i = 1; i <= 21; i += 1) {
        const ip = `198.51.100.${i}`;
        const res = await api(server).post('/auth/login').set('X-Forwarded-For', ip).send({ email: `nobody.${i}@e2e.test`, password: 'wrong-password-1' });
        expect(res.status).toBe(401);
      }
    });

    // Own backing store: one server per data directory in embedded mode.
    describe('TRUST_PROXY unset and API_DOCS_ENABLED', () => {
      let otherBacking: Backing;
      let other: TestServer;
      beforeAll(async () => {
        otherBacking = await createBacking();
        // TRUST_PROXY left unset: the default must believe no proxy.
        other = await startServer(otherBacking, { API_DOCS_ENABLED: 'false', AUTH_RATE_LIMIT_PER_MINUTE: '2', OPEN_RATE_LIMIT_PER_MINUTE: '3' });
      });
      afterAll(async () => {
        await other?.stop();
        await otherBacking?.cleanup();
      });

      it('serves no API docs when API_DOCS_ENABLED=false', async () => {
        for (const path of ['/api/docs', '/api/docs-json', '/api/docs-asyncapi.json']) {
          const res = await root(other).get(path);
          expectErrorBody(res, 404, 'not_found');
        }
      });

      it('limits media, logo and webhook requests per address on their own budget (OPEN_RATE_LIMIT_PER_MINUTE), answering 429 no-store', async () => {
        const media = () => api(other).get('/media/characters/char_x/ref_x.png?expires=1&signature=forged');
        const logo = () => api(other).get('/branding/logo/ws_01ARZ3NDEKTSV4RRFFQ69G5FAV');
        const webhook = () => api(other).post('/webhooks/replicate/trainings').set(plausibleWebhook()).set('Content-Type', 'application/json').send('{}');
        // Three requests spend the budget, each answered on its merits; all six in one window.
        await withinOneWindow(60, 15_000);
        expect((await media()).status).toBe(403);
        expect((await logo()).status).toBe(404);
        expect((await media()).status).toBe(403);
        for (const res of [await media(), await logo(), await webhook()]) {
          expectErrorBody(res, 429, 'rate_limited');
          expect(res.headers['cache-control']).toBe('no-store');
          expect(res.headers['ratelimit-policy']).toBe('"open";q=3;w=60');
        }
      });

      it('ignores X-Forwarded-For by default: every client address is the proxy itself', async () => {
        const attempt = (ip: string) => api(other).post('/auth/login').set('X-Forwarded-For', ip).send({ email: `nobody.${ip}@e2e.test`, password: 'wrong-password-1' });
        // The three attempts must share one sign-in window (a CI run once had the third in the next one).
        await withinOneWindow(60, 15_000);
        expect((await attempt('203.0.113.1')).status).toBe(401);
        expect((await attempt('203.0.113.2')).status).toBe(401);
        const third = await attempt('203.0.113.3');
        expect(third.status).toBe(429);
        expect(third.body.code).toBe('rate_limited');
      });
    });
  });
});
