import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery as a receiver saw it: the event (webhook-id), its resource, when it was created and when it arrived. */
export interface Arrival {
  eventId: string;
  /** The body's `data.id`: the content item the event is about. */
  resourceId: string;
  /** The body's `created_at` (the event's time in the outbox), epoch ms. */
  createdAt: number;
  /** When the request reached the receiver, epoch ms (the same clock as PostgreSQL's now() on this machine). */
  arrivedAt: number;
}

interface Kept {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A customer's receiver on 127.0.0.1: answers 204 as soon as the body is in, and records what
 * arrived. Every SAMPLE_EVERY-th request is kept whole, to verify its signature afterwards with
 * `standardwebhooks` (the receivers' own library), so the figures are proven to be real, signed
 * deliveries; verifying all of them would put HMAC work on the cores the service runs on.
 */
export class Receiver {
  static readonly SAMPLE_EVERY = 20;
  readonly arrivals: Arrival[] = [];
  /** webhook-id → how many times it arrived. */
  readonly seen = new Map<string, number>();
  /** resource id → its first arrival. */
  readonly firstByResource = new Map<string, Arrival>();
  private readonly sample: Kept[] = [];
  private unreadable = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(name: string): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`);
    server.on('request', (req, res) => {
      const arrivedAt = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(204).end();
        receiver.record(req.headers, Buffer.concat(chunks).toString('utf8'), arrivedAt);
      });
    });
    return receiver;
  }

  private record(headers: IncomingHttpHeaders, body: string, arrivedAt: number): void {
    const eventId = String(headers['webhook-id'] ?? '');
    let parsed: { created_at?: string; data?: { id?: string } };
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      this.unreadable += 1;
      return;
    }
    const arrival: Arrival = { eventId, resourceId: String(parsed.data?.id ?? ''), createdAt: Date.parse(parsed.created_at ?? ''), arrivedAt };
    if (this.arrivals.push(arrival) % Receiver.SAMPLE_EVERY === 1) this.sample.push({ headers, body });
    this.seen.set(eventId, (this.seen.get(eventId) ?? 0) + 1);
    if (!this.firstByResource.has(arrival.resourceId)) this.firstByResource.set(arrival.resourceId, arrival);
  }

  /** webhook-ids that arrived more than once. */
  duplicates(): number {
    let n = 0;
    for (const count of this.seen.values()) if (count > 1) n += 1;
    return n;
  }

  /** Verifies the kept sample with the endpoint's secret; a body that was not JSON counts as failed. */
  verifySample(secret: string): { verified: number; failed: number } {
    const wh = new Webhook(secret);
    let verified = 0;
    let failed = this.unreadable;
    for (const k of this.sample) {
      try {
        wh.verify(k.body, { 'webhook-id': String(k.headers['webhook-id']), 'webhook-timestamp': String(k.headers['webhook-timestamp']), 'webhook-signature': String(k.headers['webhook-signature']) });
        verified += 1;
      } catch {
        failed += 1;
      }
    }
    return { verified, failed };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
