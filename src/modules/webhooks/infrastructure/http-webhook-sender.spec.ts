import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import type { AppConfig } from '../../../config/index.js';
import { HttpWebhookSender } from './http-webhook-sender.js';

interface Seen { path: string; headers: IncomingMessage['headers']; body: string; port: number }

describe('posting a delivery', () => {
  let server: Server;
  let base: string;
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), port: req.socket.remotePort ?? 0 });
        if (req.url === '/big') res.writeHead(500).end(`a${'é'.repeat(3000)}`);
        else if (req.url === '/redirect') res.writeHead(307, { location: `${base}/target` }).end();
        else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end('late'), 2_000).unref();
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const senders: HttpWebhookSender[] = [];
  const sender = (allow: string[] = ['127.0.0.1']) => {
    const made = new HttpWebhookSender({ outboundAllowHosts: allow, webhooks: { concurrencyPerEndpoint: 4 } } as unknown as AppConfig);
    senders.push(made);
    return made;
  };
  afterAll(() => senders.forEach((s) => s.onApplicationShutdown()));
  const count = (path: string) => seen.filter((s) => s.path === path).length;

  it('posts the body with the given headers and answers the status', async () => {
    const result = await sender().send(`${base}/ok`, { 'content-type': 'application/json', 'webhook-id': 'evt_1' }, '{"a":1}', 5_000);
    expect(result).toMatchObject({ status: 204, excerpt: '', error: null });
    const got = seen.find((s) => s.path === '/ok')!;
    expect([got.body, got.headers['webhook-id'], got.headers['content-type'], got.headers['content-length']]).toEqual(['{"a":1}', 'evt_1', 'application/json', '7']);
  });

  it('keeps the connection to an endpoint alive: the next delivery reuses it', async () => {
    const one = sender();
    for (let i = 0; i < 3; i += 1) expect((await one.send(`${base}/again`, {}, '{}', 5_000)).status).toBe(204);
    expect(new Set(seen.filter((s) => s.path === '/again').map((s) => s.port)).size).toBe(1);
  });

  it('sends again on a new connection when a kept-alive one was closed under it, before any answer', async () => {
    // Answers the first request of each connection (keeping it alive) and drops the connection at the second.
    const connections: Socket[] = [];
    const tcp = createTcpServer((socket) => {
      connections.push(socket);
      let answered = false;
      socket.on('data', () => {
        if (answered) return void socket.destroy();
        answered = true;
        socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(tcp.address() as AddressInfo).port}/hook`;
    try {
      const one = sender();
      expect((await one.send(url, {}, '{}', 5_000)).status).toBe(204);
      expect(await one.send(url, {}, '{}', 5_000)).toMatchObject({ status: 204, error: null });
      expect(connections).toHaveLength(2);
    } finally {
      connections.forEach((c) => c.destroy());
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    }
  });

  it('keeps at most 1 KiB of the answer, never a cut character', async () => {
    const result = await sender().send(`${base}/big`, {}, '{}', 5_000);
    expect(result.status).toBe(500);
    // 1 + 511 × 2 bytes, then half an é at the limit: left out whole.
    expect(result.excerpt).toBe(`a${'é'.repeat(511)}`);
    expect(Buffer.byteLength(result.excerpt!)).toBe(1023);
  });

  it('never follows a redirect: the 3xx is the answer, the target is never asked', async () => {
    const result = await sender().send(`${base}/redirect`, {}, '{}', 5_000);
    expect(result.status).toBe(307);
    expect(result.error).toBe(`redirect not followed (to ${base}/target)`);
    expect(count('/target')).toBe(0);
  });

  it('vets the address at connect time: loopback refused unless allowed, a name now pointing inside refused, nothing sent', async () => {
    const before = seen.length;
    const loopback = await sender([]).send(`${base}/ok`, {}, '{}', 5_000);
    expect(loopback).toMatchObject({ status: null, excerpt: null });
    expect(loopback.error).toMatch(/loopback/);
    const rebound = sender([]);
    rebound.resolver = async () => [{ address: '169.254.169.254', family: 4 }];
    const metadata = await rebound.send('http://hooks.example.test/x', {}, '{}', 5_000);
    expect(metadata.error).toMatch(/link-local/);
    rebound.resolver = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
    expect((await rebound.send('http://hooks.example.test/x', {}, '{}', 5_000)).error).toMatch(/private/);
    expect(seen.length).toBe(before);
  });

  it('gives up an attempt at its time limit, with no status', async () => {
    const result = await sender().send(`${base}/slow`, {}, '{}', 200);
    expect(result).toMatchObject({ status: null, excerpt: null, error: 'timed out after 200 ms' });
  });
});
