import type { Server } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * Stops an HTTP server without losing a request it accepted. `stop()` closes the listening socket
 * (new connections are refused) and the connections idle at that moment (Node's `server.close()`
 * does that); a request on a busy keep-alive connection is still read and answered, and every
 * answer from then on carries `Connection: close`, so each connection ends after its answer.
 * `settled()` waits for the requests in flight, then ends whatever connection is left.
 */
export class HttpDrain {
  private readonly responses = new Set<Response>();
  private inFlight = 0;
  /** Requests answered since the drain began. */
  private served = 0;
  private draining = false;
  private idle?: () => void;

  /** Express middleware, mounted first: counts requests in flight and marks answers during a drain. */
  readonly track = (_req: Request, res: Response, next: NextFunction): void => {
    this.inFlight += 1;
    this.responses.add(res);
    if (this.draining) res.setHeader('Connection', 'close');
    res.once('close', () => this.done(res));
    next();
  };

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Stops accepting connections; answers at once. Answers not begun yet will close their connections. */
  stop(server: Server): void {
    this.draining = true;
    for (const res of this.responses) if (!res.headersSent) res.setHeader('Connection', 'close');
    server.close();
  }

  /**
   * Waits until no request is in flight, or `releaseAt`, then ends every connection left
   * (idle keep-alive ones; at `releaseAt`, also those of requests still running, which are cut).
   */
  async settled(server: Server, releaseAt: Promise<void>): Promise<{ requests_drained: number; requests_cut: number }> {
    if (this.inFlight > 0) await Promise.race([new Promise<void>((resolve) => (this.idle = resolve)), releaseAt]);
    const cut = this.inFlight;
    server.closeAllConnections();
    return { requests_drained: this.served, requests_cut: cut };
  }

  private done(res: Response): void {
    this.responses.delete(res);
    this.inFlight -= 1;
    if (this.draining) this.served += 1;
    if (this.inFlight === 0) this.idle?.();
  }
}
