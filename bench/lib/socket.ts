import WebSocket from 'ws';
import { onCleanup } from './cleanup.js';

/** One message from the server, as parsed JSON. */
export type SocketMessage = { type: string } & Record<string, unknown>;

/** Milliseconds since the epoch, with sub-millisecond resolution (comparable to the server's ISO times). */
export const now = (): number => performance.timeOrigin + performance.now();

/**
 * A client of the real-time socket (contract §7), authenticated for one workspace. Every message
 * is handed to the listeners with the time it was read, so scenarios can time events from outside.
 */
export class BenchSocket {
  private readonly listeners = new Set<(msg: SocketMessage, receivedAt: number) => void>();
  private readonly unregister: () => Promise<void>;
  /** Messages received, by type. */
  readonly counts = new Map<string, number>();
  closed = false;

  private constructor(private readonly ws: WebSocket) {
    this.unregister = onCleanup('bench socket', () => this.terminate());
    ws.on('message', (data: WebSocket.RawData) => {
      const at = now();
      let msg: SocketMessage;
      try {
        msg = JSON.parse(rawText(data)) as SocketMessage;
      } catch {
        return;
      }
      this.counts.set(msg.type, (this.counts.get(msg.type) ?? 0) + 1);
      for (const l of this.listeners) l(msg, at);
    });
    ws.on('close', () => {
      this.closed = true;
    });
    // Without a listener an 'error' event would throw; open() reports errors through its own.
    ws.on('error', () => undefined);
  }

  /**
   * Connects to ws://<host>/api/v1/ws (derived from the API's base URL), sends the auth message and
   * answers once the server says `auth.ok`; throws on `auth.error`, a close or the timeout.
   */
  static async open(apiBaseUrl: string, token: string, timeoutMs = 10_000): Promise<BenchSocket> {
    const url = `${apiBaseUrl.replace(/^http/, 'ws')}/ws`;
    const ws = new WebSocket(url);
    const socket = new BenchSocket(ws);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`socket ${url}: no auth.ok within ${timeoutMs} ms`)), timeoutMs);
        const done = (err?: Error) => {
          clearTimeout(timer);
          off();
          if (err) reject(err);
          else resolve();
        };
        const off = socket.on((msg) => {
          if (msg.type === 'auth.ok') done();
          else if (msg.type === 'auth.error') done(new Error(`socket ${url}: auth.error ${JSON.stringify(msg)}`));
        });
        ws.once('open', () => ws.send(JSON.stringify({ type: 'auth', token })));
        ws.once('error', (err) => done(err));
        ws.once('close', (code) => done(new Error(`socket ${url} closed (${code}) before auth.ok`)));
      });
    } catch (err) {
      await socket.close();
      throw err;
    }
    return socket;
  }

  /** Adds a listener; the function it answers removes it. */
  on(listener: (msg: SocketMessage, receivedAt: number) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private terminate(): Promise<void> {
    if (this.closed || this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 2_000);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.close();
    });
  }

  /** Closes the socket (a normal close, forced after 2 s). Also runs on abort. */
  close(): Promise<void> {
    this.listeners.clear();
    return this.unregister();
  }
}

function rawText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
