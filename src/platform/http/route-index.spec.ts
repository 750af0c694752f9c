import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { Express, NextFunction, Request, Response } from 'express';
import { LeanExpressAdapter } from './express-server.js';

/** A handler as Nest hands routes to the adapter (its `next` typed loosely). */
type Handler = (req: Request, res: Response, next?: unknown) => void;

/** What a route saw of the request it answered. */
const seen: Handler = (req, res) => {
  res.json({ baseUrl: req.baseUrl, route: (req.route as { path: string }).path, original: req.originalUrl, params: req.params });
};

describe('RouteIndex (through LeanExpressAdapter, as Nest adds routes)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  /** `register` adds routes through the adapter (Nest's way); `after` adds layers to the app after them (Nest's 404, errors). */
  async function start(register: (adapter: LeanExpressAdapter) => void, after: (app: Express) => void = () => undefined) {
    const adapter = new LeanExpressAdapter({ routePrefix: 'api/v1' });
    const app = adapter.getInstance<Express>();
    const before = app.router.stack.length;
    register(adapter);
    const added = app.router.stack.length - before;
    after(app);
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${base}${path}`, init);
      const body = res.headers.get('content-type')?.includes('json') ? ((await res.json()) as Record<string, unknown>) : await res.text();
      return { status: res.status, body, first: res.headers.get('x-first') };
    };
    return { get, added };
  }

  const notFound = (app: Express) => app.use((req, res) => res.status(404).json({ missing: req.originalUrl }));

  it('keeps every route under the prefix in one layer of the application, whatever their number', async () => {
    const { added, get } = await start((a) => {
      for (const segment of ['health', 'characters', 'l', 'content', 'auth']) {
        a.get(`/api/v1/${segment}`, seen);
        a.get(`/api/v1/${segment}/:id`, seen);
        a.post(`/api/v1/${segment}/:id/things`, seen);
      }
    }, notFound);
    expect(added).toBe(1);
    expect((await get('/api/v1/auth/abc')).body).toEqual({ baseUrl: '/api/v1', route: '/auth/:id', original: '/api/v1/auth/abc', params: { id: 'abc' } });
  });

  it('answers as Express would: the route, its parameters, a trailing slash, a query, any case', async () => {
    const { get } = await start((a) => {
      a.get('/api/v1/health', seen);
      a.get('/api/v1/l/:shortcode', seen);
    }, notFound);
    expect((await get('/api/v1/l/summer-sale?utm=x')).body).toEqual({ baseUrl: '/api/v1', route: '/l/:shortcode', original: '/api/v1/l/summer-sale?utm=x', params: { shortcode: 'summer-sale' } });
    expect((await get('/api/v1/health/')).body).toMatchObject({ route: '/health' });
    expect((await get('/API/V1/Health')).body).toMatchObject({ route: '/health' });
    expect((await get('/api/v1/health?deep=1')).body).toMatchObject({ route: '/health' });
  });

  it('goes on down the application for a segment, method or path it has no route for', async () => {
    const { get } = await start((a) => {
      a.get('/api/v1/characters/:id', seen);
      // Not literal: kept in the application's list, after the index.
      a.get('/api/v1/:anything/deep', (req: Request, res: Response) => res.json({ fallback: req.params.anything }));
    }, notFound);
    expect((await get('/api/v1/characters/c1')).status).toBe(200);
    expect((await get('/api/v1/characters/c1', { method: 'DELETE' })).body).toEqual({ missing: '/api/v1/characters/c1' });
    expect((await get('/api/v1/characters/c1/more')).body).toEqual({ missing: '/api/v1/characters/c1/more' });
    expect((await get('/api/v1/nothing-here')).body).toEqual({ missing: '/api/v1/nothing-here' });
    expect((await get('/api/v1/whatever/deep')).body).toEqual({ fallback: 'whatever' });
    expect((await get('/api/v1')).body).toEqual({ missing: '/api/v1' });
  });

  it('keeps the order routes were added in, next() included, and passes errors on to the application', async () => {
    const { get } = await start((a) => {
      a.get('/api/v1/links/special', ((_req, res, next) => (res.setHeader('X-First', 'yes'), (next as NextFunction)())) satisfies Handler);
      a.get('/api/v1/links/:id', seen);
      a.get('/api/v1/links/special', () => {
        throw new Error('never reached: the route before answered');
      });
      a.get('/api/v1/boom', ((_req, _res, next) => (next as NextFunction)(new Error('boom'))) satisfies Handler);
    }, (app) => {
      notFound(app);
      app.use((err: Error, _req: Request, res: Response, _next: NextFunction) => res.status(500).json({ error: err.message }));
    });
    // The first route ran (its header) and passed on to the next matching one, which answered.
    expect(await get('/api/v1/links/special')).toMatchObject({ first: 'yes', body: { route: '/links/:id', params: { id: 'special' } } });
    expect((await get('/api/v1/links/other')).first).toBeNull();
    expect(await get('/api/v1/boom')).toEqual({ status: 500, body: { error: 'boom' }, first: null });
  });

  it('leaves routes outside the prefix to the application, in their place', async () => {
    const { get, added } = await start((a) => {
      a.get('/api/docs', (_req: Request, res: Response) => res.json({ docs: true }));
      a.get('/api/v1x/health', (_req: Request, res: Response) => res.json({ other: true }));
      a.get('/api/v1/health', seen);
    }, notFound);
    expect(added).toBe(3);
    expect((await get('/api/docs')).body).toEqual({ docs: true });
    expect((await get('/api/v1x/health')).body).toEqual({ other: true });
    expect((await get('/api/v1/health')).body).toMatchObject({ route: '/health' });
  });
});
