import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './server.js';

/** One request the receiver got. */
export interface ReceivedWebhook {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** The sender's end of the connection (which process sent it: `processOwningPort`). */
  remotePort: number;
}

/** How to answer one request: a status, optionally after a delay, a body, a Location (for 3xx). */
export interface ScriptedReply {
  status: number;
  delayMs?: number;
  /** Not answered until `release()`: a request held open for as long as a test needs. */
  held?: boolean;
  body?: string;
  location?: string;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`; endpoints use paths under it, one per scenario. */
  url: string;
  received: ReceivedWebhook[];
  /** Requests to `path`, in arrival order. */
  at(path: string): ReceivedWebhook[];
  /** The next replies for `path`, one per request; once spent, `path` answers its default (200 unless `otherwise`). */
  script(path: string, replies: ScriptedReply[], otherwise?: ScriptedReply): void;
  /** Waits until `path` got `count` requests (or `pred` holds for them). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** Answers every held request now. */
  release(): void;
  close(): Promise<void>;
}

/** A plain HTTP server on 127.0.0.1 that records every request and answers as scripted per path. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, ScriptedReply[]>();
  const defaults = new Map<string, ScriptedReply>();
  const held: Array<() => void> = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
      received.push({ path, method: req.method ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), remotePort: req.socket.remotePort ?? 0 });
      const reply = scripts.get(path)?.shift() ?? defaults.get(path) ?? { status: 200, body: 'ok' };
      const answer = () => {
        if (res.destroyed) return;
        const head: Record<string, string> = { 'content-type': 'text/plain' };
        if (reply.location) head.location = reply.location;
        res.writeHead(reply.status, head);
        res.end(reply.body ?? '');
      };
      if (reply.held) held.push(answer);
      else if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const at = (path: string) => received.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at,
    script(path, replies, otherwise) {
      scripts.set(path, [...replies]);
      if (otherwise) defaults.set(path, otherwise);
    },
    waitFor(path, count, timeoutMs = 15_000) {
      return waitFor(async () => (at(path).length >= count ? at(path) : null), timeoutMs, `${count} webhook requests to ${path} (got ${at(path).length})`);
    },
    release() {
      held.splice(0).forEach((answer) => answer());
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
