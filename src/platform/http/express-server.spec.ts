import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import express, { type Express } from 'express';
import { LeanExpressAdapter } from './express-server.js';

/** Starts `server` on a free loopback port; answers its base URL. */
async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('LeanExpressAdapter', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function start(routes: (app: Express) => void): Promise<{ base: string; app: Express; server: Server }> {
    const adapter = new LeanExpressAdapter();
    const app = adapter.getInstance<Express>();
    routes(app);
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    return { base: await listen(server), app, server };
  }

  it('builds each request and response with the prototypes Express would swap in, before Express sees them', async () => {
    const born: boolean[] = [];
    const { base, app, server: s } = await start((a) => a.get('/x', (_req, res) => res.json({ ok: true })));
    s.prependListener('request', (req, res) => born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response));
    const res = await fetch(`${base}/x`);
    expect(res.status).toBe(200);
    expect(born).toEqual([true]);
  });

  it('keeps every Express method on the request and the response', async () => {
    const { base } = await start((a) => a.get('/echo/:id', (req, res) => res.status(201).set('X-Seen', req.get('x-test') ?? '').json({ id: req.params.id, ip: req.ip, q: req.query.q })));
    const res = await fetch(`${base}/echo/abc?q=1`, { headers: { 'x-test': 'yes' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(await res.json()).toEqual({ id: 'abc', ip: '127.0.0.1', q: '1' });
  });

  it('still serves a mounted Express app and the routes after it', async () => {
    const sub = express();
    sub.get('/inner', (req, res) => res.json({ inner: req.baseUrl }));
    const { base } = await start((a) => {
      a.use('/sub', sub);
      a.get('/after', (req, res) => res.json({ after: req.originalUrl }));
    });
    expect(await (await fetch(`${base}/sub/inner`)).json()).toEqual({ inner: '/sub' });
    expect(await (await fetch(`${base}/after`)).json()).toEqual({ after: '/after' });
  });
});
