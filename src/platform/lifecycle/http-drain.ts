import { Server as NetServer, type Socket } from 'node:net';
import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * How long every open connection must have sent nothing (after the last request in flight was
 * answered) before the connections left are closed. A keep-alive connection that looks idle may
 * hold a request the client sent just before the stop, still in the kernel's buffer or on the
 * wire: it is read and answered (with `Connection: close`) within this time.
 */
export const IDLE_GRACE_MS = 1000;

/**
 * Stops an HTTP server without losing a request a client sent before the stop. `stop()` closes
 * the listening socket only (new connections are refused); keep-alive connections stay open, since
 * one that looks idle may carry a request not read yet. Every answer from then on carries
 * `Connection: close`, so each connection ends after its next answer. `settled()` waits for the
 * requests in flight, then for every connection left to have been silent for `idleGraceMs`, and only
 * then ends those connections: a connection is closed only when truly idle.
 */
export class HttpDrain {
  /** The responses in flight (see `Slots`: not a Set). */
  private readonly responses = new Slots<Response>();
  /** Open HTTP connections (upgraded ones, the sockets, leave: the gateway closes them). */
  private readonly connections = new Slots<Socket>();
  private inFlight = 0;
  /** Requests begun since the process started: a change means a connection was not idle. */
  private begun = 0;
  /** Requests answered since the drain began. */
  private served = 0;
  private draining = false;
  private idle?: () => void;

  constructor(private readonly idleGraceMs = IDLE_GRACE_MS) {}

  /** Express middleware, mounted first: counts requests in flight and marks answers during a drain. */
  readonly track = (_req: Request, res: Response, next: NextFunction): void => {
    this.inFlight += 1;
    this.begun += 1;
    const slot = this.responses.add(res);
    if (this.draining) res.setHeader('Connection', 'close');
    res.once('close', () => this.done(slot, res));
    next();
  };

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Follows `server`'s connections, to tell when they are all silent. Call before it listens. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      const slot = this.connections.add(socket);
      socket.once('close', () => this.connections.remove(slot, socket));
    });
    server.on('upgrade', (_req: unknown, socket: Socket) => this.connections.remove(this.connections.indexOf(socket), socket));
  }

  /**
   * Stops accepting connections; answers at once. Open connections stay open (Node's
   * `server.close()` would also end those idle at this instant, resetting a request already sent
   * on one); answers not begun yet will close their connections.
   */
  stop(server: Server): void {
    this.draining = true;
    for (const res of this.responses) if (!res.headersSent) res.setHeader('Connection', 'close');
    NetServer.prototype.close.call(server);
  }

  /**
   * Waits until no request is in flight and every connection has been silent for the grace time
   * (or until `releaseAt`), then ends every connection left (at `releaseAt`, also those of
   * requests still running, which are cut).
   */
  async settled(server: Server, releaseAt: Promise<void>): Promise<{ requests_drained: number; requests_cut: number }> {
    let released = false;
    void releaseAt.then(() => (released = true));
    for (;;) {
      if (this.inFlight > 0) await Promise.race([new Promise<void>((resolve) => (this.idle = resolve)), releaseAt]);
      if (released || (await this.quietFor(releaseAt))) break;
    }
    const cut = this.inFlight;
    server.closeAllConnections();
    return { requests_drained: this.served, requests_cut: cut };
  }

  /** Whether nothing was received on any connection, and no request begun, for the grace time. */
  private async quietFor(releaseAt: Promise<void>): Promise<boolean> {
    const begun = this.begun;
    const read = new Map([...this.connections].map((socket) => [socket, socket.bytesRead]));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, this.idleGraceMs))), releaseAt]);
    clearTimeout(timer);
    // Timers run before the event loop polls its sockets: let it read what arrived meanwhile first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A connection that closed meanwhile is no activity; one still open must have read nothing.
    return this.inFlight === 0 && this.begun === begun && [...this.connections].every((socket) => read.get(socket) === socket.bytesRead);
  }

  private done(slot: number, res: Response): void {
    this.responses.remove(slot, res);
    this.inFlight -= 1;
    if (this.draining) this.served += 1;
    if (this.inFlight === 0) this.idle?.();
  }
}

/**
 * Objects that come and go many times a second (requests, connections), each in a slot that is
 * emptied when it leaves and then used again. Not a Set: V8 keeps a Set's entries in a hash table
 * that it rebuilds as entries come and go, and a table it leaves behind in the old space still
 * points at what it held, until the next full collection. The young collector takes every pointer
 * from the old space for a live one, so each response tracked across a rebuild was promoted with
 * all it holds, and a route that waits on I/O cost a full collection about every second
 * (docs/benchmarks.md, "A Set of responses").
 */
class Slots<T extends object> {
  private readonly items: Array<T | undefined> = [];
  private readonly free: number[] = [];

  /** Puts `item` in a free slot; answers the slot. */
  add(item: T): number {
    const slot = this.free.pop() ?? this.items.length;
    this.items[slot] = item;
    return slot;
  }

  /** Empties `slot` if it still holds `item` (a slot emptied before may hold another by now). */
  remove(slot: number, item: T): void {
    if (slot < 0 || this.items[slot] !== item) return;
    this.items[slot] = undefined;
    this.free.push(slot);
  }

  /** The slot holding `item`, or -1. */
  indexOf(item: T): number {
    return this.items.indexOf(item);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const item of this.items) if (item !== undefined) yield item;
  }
}
