import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { NextFunction, Request, Response } from 'express';
import { HttpDrain } from './http-drain.js';

const NEVER = new Promise<void>(() => undefined);

/** A server whose every request goes through `drain.track`, then to `handle` (default: answers `ok`). */
async function serve(drain: HttpDrain, handle: (res: ServerResponse) => void = (res) => res.end('ok')): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) =>
    drain.track(req as Request, res as Response, (() => handle(res)) as NextFunction));
  drain.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A raw keep-alive client: what the server answers is read as text; `ended` says how the connection ended. */
function client(server: Server | number) {
  const port = typeof server === 'number' ? server : (server.address() as AddressInfo).port;
  const socket: Socket = connect({ host: '127.0.0.1', port });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve('closed'));
  });
  const answers = () => text.split('HTTP/1.1 ').slice(1);
  return {
    socket,
    ended,
    answers,
    send: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n`),
    /** Waits until `n` whole answers have arrived (or the connection ended). */
    async answered(n: number): Promise<string[]> {
      while (answers().length < n || !answers()[n - 1].endsWith('ok')) {
        const more = await Promise.race([new Promise<boolean>((resolve) => socket.once('data', () => resolve(true))), ended.then(() => false)]);
        if (!more) break;
      }
      return answers();
    },
  };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.closeAllConnections();
});

describe('HttpDrain', () => {
  it('answers a request sent on an idle keep-alive connection just before the stop (not read yet), with Connection: close', async () => {
    const drain = new HttpDrain(200);
    const server = await serve(drain);
    servers.push(server);
    const c = client(server);
    c.send('/first');
    expect(await c.answered(1)).toHaveLength(1);

    // The request's bytes are in the server's socket buffer, not parsed, when the stop comes.
    c.send('/second');
    drain.stop(server);
    const settled = drain.settled(server, NEVER);

    const answers = await c.answered(2);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^200 OK/);
    expect(answers[1]).toMatch(/\r\nConnection: close\r\n/i);
    expect(await c.ended).toBe('closed');
    await expect(settled).resolves.toEqual({ requests_drained: 1, requests_cut: 0 });
  });

  it('refuses new connections once stopped', async () => {
    const drain = new HttpDrain(200);
    const server = await serve(drain);
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    drain.stop(server);
    const c = client(port);
    expect(await c.ended).toBe('ECONNREFUSED');
  });

  it('closes a connection that stays silent, once every request is answered', async () => {
    const drain = new HttpDrain(100);
    const server = await serve(drain);
    servers.push(server);
    const c = client(server);
    c.send('/only');
    await c.answered(1);
    drain.stop(server);
    await expect(drain.settled(server, NEVER)).resolves.toEqual({ requests_drained: 0, requests_cut: 0 });
    expect(await c.ended).toBe('closed');
  });

  it('answers a request in flight at the stop with Connection: close, and waits for it', async () => {
    const drain = new HttpDrain(100);
    let finish!: () => void;
    const server = await serve(drain, (res) => (finish = () => res.end('ok')));
    servers.push(server);
    const c = client(server);
    c.send('/slow');
    while (!finish) await new Promise((resolve) => setImmediate(resolve));
    drain.stop(server);
    const settled = drain.settled(server, NEVER);
    finish();
    const answers = await c.answered(1);
    expect(answers[0]).toMatch(/\r\nConnection: close\r\n/i);
    await expect(settled).resolves.toEqual({ requests_drained: 1, requests_cut: 0 });
  });

  it('marks every request in flight at the stop, also one that began after another ended (its place reused)', async () => {
    const drain = new HttpDrain(100);
    const held: Array<() => void> = [];
    const server = await serve(drain, (res) => held.push(() => res.end('ok')));
    servers.push(server);
    const [first, second, third] = [client(server), client(server), client(server)];
    const heldCount = async (n: number) => {
      while (held.length < n) await new Promise((resolve) => setImmediate(resolve));
    };
    first.send('/one');
    await heldCount(1);
    second.send('/two');
    await heldCount(2);
    held[1]();
    expect((await second.answered(1))[0]).not.toMatch(/\r\nConnection: close\r\n/i);
    third.send('/three');
    await heldCount(3);
    expect(drain.requestsInFlight).toBe(2);

    drain.stop(server);
    const settled = drain.settled(server, NEVER);
    held[0]();
    held[2]();
    expect((await first.answered(1))[0]).toMatch(/\r\nConnection: close\r\n/i);
    expect((await third.answered(1))[0]).toMatch(/\r\nConnection: close\r\n/i);
    await expect(settled).resolves.toEqual({ requests_drained: 2, requests_cut: 0 });
  });

  it('leaves an upgraded connection out: what it carries is no HTTP activity, and it stays open', async () => {
    const drain = new HttpDrain(100);
    const server = await serve(drain);
    servers.push(server);
    server.on('upgrade', (_req: IncomingMessage, socket: Socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: chat\r\nConnection: Upgrade\r\n\r\n');
      socket.on('data', () => undefined);
    });
    const plain = client(server);
    plain.send('/before');
    await plain.answered(1);
    const upgraded = client(server);
    upgraded.socket.write('GET /chat HTTP/1.1\r\nHost: test\r\nConnection: Upgrade\r\nUpgrade: chat\r\n\r\n');
    while (!upgraded.answers()[0]?.startsWith('101')) await new Promise((resolve) => upgraded.socket.once('data', resolve));
    // The upgraded connection talks all along; the drain must not wait for it to fall silent.
    const chatter = setInterval(() => upgraded.socket.write('ping'), 20);
    try {
      drain.stop(server);
      await expect(drain.settled(server, NEVER)).resolves.toEqual({ requests_drained: 0, requests_cut: 0 });
      expect(await plain.ended).toBe('closed');
      expect(upgraded.socket.destroyed).toBe(false);
    } finally {
      clearInterval(chatter);
      upgraded.socket.destroy();
    }
  });

  it('at the release point, cuts what still runs and says so', async () => {
    const drain = new HttpDrain(100);
    const server = await serve(drain, () => undefined);
    servers.push(server);
    const c = client(server);
    c.send('/forever');
    while (drain.requestsInFlight === 0) await new Promise((resolve) => setImmediate(resolve));
    drain.stop(server);
    let release!: () => void;
    const settled = drain.settled(server, new Promise<void>((resolve) => (release = resolve)));
    release();
    await expect(settled).resolves.toEqual({ requests_drained: 0, requests_cut: 1 });
    expect(await c.ended).toBe('closed');
  });
});
