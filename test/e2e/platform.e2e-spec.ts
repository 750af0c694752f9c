import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, root } from '../helpers/api.js';
import { createBacking, startServer, type Backing, type TestServer } from '../helpers/server.js';

describe('HTTP edge', () => {
  let backing: Backing;
  let server: TestServer;

  beforeAll(async () => {
    backing = await createBacking();
    server = await startServer(backing);
  });
  afterAll(async () => {
    await server?.stop();
    await backing?.cleanup();
  });

  it('answers liveness and readiness', async () => {
    const live = await api(server).get('/health');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await api(server).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.database).toBe('up');
  });

  it('answers an unknown route with the contract error body and a request id', async () => {
    const res = await api(server).get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, code: 'not_found' });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(JSON.stringify(res.body)).not.toMatch(/stack|at \w+ \(/);
  });

  it('echoes a safe client request id and replaces an unsafe one', async () => {
    const safe = await api(server).get('/health').set('X-Request-Id', 'client-id-123');
    expect(safe.headers['x-request-id']).toBe('client-id-123');
    const unsafe = await api(server).get('/health').set('X-Request-Id', 'bad id with spaces <script>');
    expect(unsafe.headers['x-request-id']).toMatch(/^req_[0-9A-Z]{26}$/);
  });

  it('refuses a JSON body over 1 MiB with 413 and malformed JSON with 400', async () => {
    const big = await api(server).post('/auth/login').set('Content-Type', 'application/json').send(`{"email":"${'a'.repeat(1_100_000)}"}`);
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const bad = await api(server).post('/auth/login').set('Content-Type', 'application/json').send('{"email":');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
  });

  it('sets security headers and serves the OpenAPI document', async () => {
    const res = await api(server).get('/health');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const docs = await root(server).get('/api/docs-json');
    expect(docs.status).toBe(200);
    expect(docs.body.openapi).toMatch(/^3\./);
    expect(Object.keys(docs.body.paths)).toContain('/health');
  });

  it('documents the 429 and its headers on a rate-limited route, and serves the AsyncAPI document of the socket', async () => {
    const docs = await root(server).get('/api/docs-json');
    const credits = docs.body.paths['/billing/credits'].get.responses;
    expect(credits['429'].description).toBe('rate_limited');
    expect(Object.keys(credits['429'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy', 'X-RateLimit-Remaining']));
    const socket = await root(server).get('/api/docs-asyncapi.json');
    expect(socket.status).toBe(200);
    expect(socket.headers['content-type']).toMatch(/application\/json/);
    expect(socket.body).toMatchObject({ asyncapi: '3.0.0', channels: { socket: { address: '/api/v1/ws' } } });
  });
});
