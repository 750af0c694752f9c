import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';
import { readBody } from './read-body.js';

/**
 * Faults a self-hosted GPU fake can be told to show. Generation faults apply to the requests that
 * draw (A1111 txt2img/img2img, ComfyUI POST /prompt); `healthDown` to the health routes only.
 */
export interface GpuFakeFaults {
  /** Each generation takes this long once its turn comes. */
  slowMs: number;
  /** Answer 500 to the next N generation requests, or to all of them (`'all'`). */
  fail5xx: number | 'all';
  /** Destroy the socket of the next N generation requests (or all) without answering. */
  reset: number | 'all';
  /** Generation requests are never answered; a client closing one counts in `abortedRequests`. */
  hang: boolean;
  /** The health route answers 503, or resets the connection. */
  healthDown: false | '503' | 'reset';
  /** Generation requests answer 307 to this URL (a server pointing us at a metadata address). */
  redirectTo: string | null;
}

export const HEALTHY: GpuFakeFaults = { slowMs: 0, fail5xx: 0, reset: 0, hang: false, healthDown: false, redirectTo: null };

export interface GpuFakeRequest {
  method: string;
  path: string;
  /** The Authorization header as sent. */
  authorization?: string;
  /** A short account of the body (JSON keys, multipart fields, its size), never the whole body. */
  body: string;
}

/** One request as a fake's route sees it: body read, client still there (or not). */
export interface GpuFakeExchange {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  query: URLSearchParams;
  raw: Buffer;
  /** Aborted when the client closes the connection before the answer, or the fake stops. */
  gone: AbortSignal;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const pngCache = new Map<string, Promise<Buffer>>();

/** A solid-colour PNG of the asked size; cached, since a fake draws the same few sizes over and over. */
export function solidPng(width: number, height: number, rgb: [number, number, number]): Promise<Buffer> {
  const key = `${width}x${height}:${rgb.join(',')}`;
  let png = pngCache.get(key);
  if (!png) {
    png = sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } }).png().toBuffer();
    pngCache.set(key, png);
  }
  return png;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * What the two GPU fakes share: an HTTP server that can be killed and restarted on the same port,
 * one generation at a time in arrival order (a FIFO, as A1111 and ComfyUI run their queue), the
 * held/maxHeld counts the routing tests assert on, auth, and the injectable faults.
 */
export abstract class GpuFakeServer {
  readonly requests: GpuFakeRequest[] = [];
  faults: GpuFakeFaults = { ...HEALTHY };
  /** Requests (or queued prompts) that arrived and are not answered (or finished) yet. */
  held = 0;
  /** The most held at once since start or `resetStats()`. */
  maxHeld = 0;
  /** Generations that ran to the end. */
  generations = 0;
  /** The most generations ever drawing at once: 1, unless the FIFO is broken. */
  maxRunning = 0;
  private running = 0;
  /** Requests the client closed before the fake answered them. */
  abortedRequests = 0;
  /** For each of those, how long after it arrived the client closed it (ms, measured here). */
  readonly abortedAfterMs: number[] = [];
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private lane: Promise<void> = Promise.resolve();
  private stopping = new AbortController();
  private basePort = 0;
  private gate: { opened: Promise<void>; open(): void } | null = null;

  /** The credentials a client must present; undefined accepts every client. */
  constructor(protected readonly credentials?: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.basePort}`;
  }

  set mode(faults: Partial<GpuFakeFaults>) {
    this.faults = { ...HEALTHY, ...faults };
  }

  /** Listens on 127.0.0.1 (`port`, e.g. the one a killed fake had; default any free one) and answers the base URL. */
  async start(port = 0): Promise<string> {
    if (this.server) throw new Error('the fake is already running');
    this.stopping = new AbortController();
    this.lane = Promise.resolve();
    const server = createServer((req, res) => void this.dispatch(req, res));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.basePort = (server.address() as AddressInfo).port;
    return this.url;
  }

  /** Drops every connection at once, as a killed process would, and stops listening. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    this.stopping.abort();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.held = 0;
  }

  /** Generations wait, before drawing, until `resume()`: lets a test have requests pile up without timing. */
  pause(): void {
    if (this.gate) return;
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    this.gate = { opened, open };
  }

  resume(): void {
    this.gate?.open();
    this.gate = null;
  }

  resetStats(): void {
    this.requests.length = 0;
    this.maxHeld = this.held;
    this.maxRunning = this.running;
    this.generations = 0;
    this.abortedRequests = 0;
    this.abortedAfterMs.length = 0;
  }

  protected abstract route(x: GpuFakeExchange): Promise<void>;
  protected abstract isHealthRoute(path: string): boolean;
  protected abstract isGenerationRoute(method: string, path: string): boolean;
  protected abstract authorized(header: string | undefined): boolean;
  protected abstract unauthorized(res: ServerResponse): void;

  /** Whether a route sits behind the credentials; every route by default. */
  protected needsAuth(_path: string): boolean {
    return true;
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const closed = new AbortController();
    const stopped = this.stopping.signal;
    const arrived = performance.now();
    res.on('close', () => {
      if (res.writableFinished) return;
      if (!stopped.aborted) {
        this.abortedRequests += 1;
        this.abortedAfterMs.push(performance.now() - arrived);
      }
      closed.abort();
    });
    const gone = AbortSignal.any([closed.signal, stopped]);
    try {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://fake');
      const method = req.method ?? 'GET';
      this.requests.push({ method, path: url.pathname, authorization: req.headers.authorization, body: summarise(req, raw) });
      const x: GpuFakeExchange = { req, res, path: url.pathname, query: url.searchParams, raw, gone };
      if (this.injected(x, method)) return;
      if (this.needsAuth(url.pathname) && !this.authorized(req.headers.authorization)) return this.unauthorized(res);
      await this.route(x);
    } catch (err) {
      json(res, 500, { error: 'fake failure', detail: String(err) });
    }
  }

  /** Applies the configured faults; true when one answered (or refused to answer) the request. */
  private injected(x: GpuFakeExchange, method: string): boolean {
    const f = this.faults;
    if (this.isHealthRoute(x.path)) {
      if (f.healthDown === 'reset') x.req.socket.destroy();
      else if (f.healthDown === '503') json(x.res, 503, { detail: 'Service Unavailable' });
      return f.healthDown !== false;
    }
    if (!this.isGenerationRoute(method, x.path)) return false;
    if (f.redirectTo !== null) {
      x.res.writeHead(307, { Location: f.redirectTo, 'Content-Length': '0' });
      x.res.end();
      return true;
    }
    if (f.reset === 'all' || f.reset > 0) {
      if (f.reset !== 'all') f.reset -= 1;
      x.req.socket.destroy();
      return true;
    }
    if (f.fail5xx === 'all' || f.fail5xx > 0) {
      if (f.fail5xx !== 'all') f.fail5xx -= 1;
      json(x.res, 500, { error: 'RuntimeError', detail: 'CUDA out of memory (injected)', body: '', errors: '' });
      return true;
    }
    if (f.hang) {
      const release = this.hold();
      x.gone.addEventListener('abort', release, { once: true });
      return true;
    }
    return false;
  }

  /** Counts one more held request or prompt; the returned release is safe to call twice. */
  protected hold(): () => void {
    this.held += 1;
    this.maxHeld = Math.max(this.maxHeld, this.held);
    const epoch = this.stopping;
    let released = false;
    return () => {
      // A request of a run before a stop no longer counts: stop() zeroed the count.
      if (released || epoch !== this.stopping || epoch.signal.aborted) return;
      released = true;
      this.held -= 1;
    };
  }

  /**
   * Runs `draw` when every earlier generation has finished (`onStart` then) and `slowMs` passed. Resolves null when
   * `cancelled` fired first (the client left, the prompt was deleted, the fake was stopped).
   */
  protected inTurn<T>(cancelled: AbortSignal, draw: () => Promise<T>, onStart?: () => void): Promise<T | null> {
    const stopped = this.stopping.signal;
    const signal = AbortSignal.any([cancelled, stopped]);
    const run = this.lane.then(async () => {
      if (signal.aborted) return null;
      if (this.gate) await Promise.race([this.gate.opened, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
      if (signal.aborted) return null;
      onStart?.();
      this.running += 1;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      try {
        await sleep(this.faults.slowMs, signal);
        if (signal.aborted) return null;
        const out = await draw();
        this.generations += 1;
        return out;
      } finally {
        this.running -= 1;
      }
    });
    this.lane = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }
}

function summarise(req: IncomingMessage, raw: Buffer): string {
  if (raw.length === 0) return '';
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    try {
      const parsed = JSON.parse(raw.toString('utf8'));
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return `json {${Object.keys(parsed).join(',')}} ${raw.length} B`;
    } catch {
      return `invalid json ${raw.length} B`;
    }
  }
  return `${type.split(';')[0] || 'body'} ${raw.length} B`;
}

/** Resolves once `check` holds, for tests waiting on a fake's counters; throws after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
