import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { readBody } from './read-body.js';

/**
 * What the fake does from now on. `ok`: predictions succeed (at once under `Prefer: wait` when
 * `honourWait`, else starting → processing → succeeded over polls). `fail`: they end `failed`
 * with `error`. `http_error`: the next `times` API requests are answered `status`. `hang`: they
 * never finish. `malformed_json`: create answers broken JSON. `malformed_output`: success with an
 * output that is not file URLs. `bad_file`: output files are not media. `oversized`: output
 * files are `bytes` long, streamed without a length.
 */
export type ReplicateFakeMode =
  | { kind: 'ok' }
  | { kind: 'fail'; error: string }
  | { kind: 'http_error'; status: number; times: number; retryAfter?: number }
  | { kind: 'hang' }
  | { kind: 'malformed_json' }
  | { kind: 'malformed_output' }
  | { kind: 'bad_file' }
  | { kind: 'oversized'; bytes: number };

export interface ReplicateRequestSeen {
  method: string;
  path: string;
  authorization?: string;
  prefer?: string;
  cancelAfter?: string;
  /** The parsed JSON body, when there was one. */
  body?: any;
}

export interface FakePrediction {
  id: string;
  model: string;
  input: Record<string, any>;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  output: unknown;
  error: string | null;
  polls: number;
}

interface StoredFile {
  bytes: Buffer;
  contentType: string;
}

export interface FakeReplicate {
  url: string;
  requests: ReplicateRequestSeen[];
  predictions: Map<string, FakePrediction>;
  /** Files uploaded through POST /v1/files. */
  uploads: Map<string, StoredFile>;
  /** Mutable: whether `Prefer: wait` gets a finished prediction, and after how many polls one finishes. */
  options: { honourWait: boolean; pollsToFinish: number };
  setMode(mode: ReplicateFakeMode): void;
  /** Requests whose path contains `pathPart`, e.g. `requestsTo('/cancel', 'POST')`. */
  requestsTo(pathPart: string, method?: string): ReplicateRequestSeen[];
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return value === undefined ? undefined : String(value);
}

/** A small size with the input's aspect ratio: real models answer big files, the fake small ones. */
function outputSize(input: Record<string, any>, longSide: number): { width: number; height: number } {
  let [w, h] = [1, 1];
  if (typeof input.width === 'number' && typeof input.height === 'number') [w, h] = [input.width, input.height];
  else if (typeof input.aspect_ratio === 'string' && /^\d+:\d+$/.test(input.aspect_ratio)) [w, h] = input.aspect_ratio.split(':').map(Number);
  const scale = longSide / Math.max(w, h);
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}

async function makePng(input: Record<string, any>, index: number): Promise<Buffer> {
  const { width, height } = outputSize(input, 64);
  return sharp({ create: { width, height, channels: 3, background: { r: (index * 60) % 256, g: 120, b: 200 } } }).png().toBuffer();
}

async function makeGif(input: Record<string, any>): Promise<Buffer> {
  const { width, height } = outputSize(input, 48);
  const frames = 3;
  const strip = Buffer.alloc(width * height * 3 * frames);
  for (let i = 0; i < strip.length; i++) strip[i] = (Math.floor(i / (width * height * 3)) * 90 + (i % 3) * 40) % 256;
  return sharp(strip, { raw: { width, height: height * frames, channels: 3, pageHeight: height } }).gif({ delay: [400, 400, 400], loop: 0 }).toBuffer();
}

/** Video models take a duration or a driving video and answer one file; image models a list. */
function isVideo(input: Record<string, any>): boolean {
  return input.duration !== undefined || input.video !== undefined;
}

/** Replicate's predictions API, as far as the adapters use it. */
class ReplicateFake {
  readonly requests: ReplicateRequestSeen[] = [];
  readonly predictions = new Map<string, FakePrediction>();
  readonly uploads = new Map<string, StoredFile>();
  readonly files = new Map<string, StoredFile>();
  mode: ReplicateFakeMode = { kind: 'ok' };
  base = '';
  private counter = 0;

  constructor(
    readonly options: { honourWait: boolean; pollsToFinish: number },
    private readonly token?: string,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let body: any;
    if ((header(req, 'content-type') ?? '').startsWith('application/json')) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return json(res, 400, { detail: 'body is not JSON' });
      }
    }
    this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, prefer: header(req, 'prefer'), cancelAfter: header(req, 'cancel-after'), body });
    if (path.startsWith('/files/')) return this.serveFile(res, path);
    if (this.token && req.headers.authorization !== `Bearer ${this.token}`) {
      return json(res, 401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
    }
    if (this.mode.kind === 'http_error' && this.mode.times > 0) {
      this.mode.times--;
      return json(res, this.mode.status, { detail: 'scripted failure' }, this.mode.retryAfter !== undefined ? { 'Retry-After': String(this.mode.retryAfter) } : {});
    }
    await this.route(req, res, path, raw, body);
  }

  private async route(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer, body: any): Promise<void> {
    const post = req.method === 'POST';
    let m: RegExpExecArray | null;
    if (post && (m = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path))) return this.create(req, res, `${m[1]}/${m[2]}`, body);
    if (post && path === '/v1/predictions') return this.create(req, res, String(body?.version ?? ''), body);
    if (req.method === 'GET' && (m = /^\/v1\/predictions\/([^/]+)$/.exec(path))) return this.poll(res, m[1]);
    if (post && (m = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path))) return this.cancel(res, m[1]);
    if (post && path === '/v1/files') return this.upload(req, res, raw);
    json(res, 404, { detail: 'Not found.' });
  }

  private view(p: FakePrediction) {
    const urls = { get: `${this.base}/v1/predictions/${p.id}`, cancel: `${this.base}/v1/predictions/${p.id}/cancel` };
    const output = p.status === 'succeeded' ? p.output : null;
    return { id: p.id, model: p.model, version: 'fakeversion', input: p.input, logs: '', output, error: p.error, status: p.status, created_at: new Date().toISOString(), urls };
  }

  private async create(req: IncomingMessage, res: ServerResponse, model: string, body: any): Promise<void> {
    if (this.mode.kind === 'malformed_json') {
      res.writeHead(201, { 'Content-Type': 'application/json' });
      return void res.end('{"id": "broken", "status": ');
    }
    if (typeof body?.input !== 'object' || body.input === null) return json(res, 422, { detail: '- input: Invalid type. Expected: object' });
    const p: FakePrediction = { id: `fakepred${++this.counter}`, model, input: body.input, status: 'starting', output: null, error: null, polls: 0 };
    this.predictions.set(p.id, p);
    const wantsWait = /^wait(=\d+)?$/.test(header(req, 'prefer') ?? '');
    if (wantsWait && this.options.honourWait && this.mode.kind !== 'hang') await this.finish(p);
    json(res, 201, this.view(p));
  }

  private async poll(res: ServerResponse, id: string): Promise<void> {
    const p = this.predictions.get(id);
    if (!p) return json(res, 404, { detail: 'Not found.' });
    p.polls++;
    if (p.status === 'starting' || p.status === 'processing') {
      if (this.mode.kind !== 'hang' && p.polls >= this.options.pollsToFinish) await this.finish(p);
      else p.status = 'processing';
    }
    json(res, 200, this.view(p));
  }

  private cancel(res: ServerResponse, id: string): void {
    const p = this.predictions.get(id);
    if (!p) return json(res, 404, { detail: 'Not found.' });
    if (p.status === 'starting' || p.status === 'processing') p.status = 'canceled';
    json(res, 200, this.view(p));
  }

  private async finish(p: FakePrediction): Promise<void> {
    if (this.mode.kind === 'fail') {
      Object.assign(p, { status: 'failed', error: this.mode.error });
      return;
    }
    if (this.mode.kind === 'malformed_output') {
      Object.assign(p, { status: 'succeeded', output: 42 });
      return;
    }
    const video = isVideo(p.input);
    const urls: string[] = [];
    for (let i = 0; i < (video ? 1 : Math.max(1, Number(p.input.num_outputs ?? 1))); i++) {
      const name = `/files/${p.id}/${i}.${video ? 'gif' : 'png'}`;
      this.files.set(name, video ? { bytes: await makeGif(p.input), contentType: 'image/gif' } : { bytes: await makePng(p.input, i), contentType: 'image/png' });
      urls.push(`${this.base}${name}`);
    }
    Object.assign(p, { status: 'succeeded', output: video ? urls[0] : urls });
  }

  private upload(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    const boundary = /boundary=(.+)$/.exec(header(req, 'content-type') ?? '')?.[1];
    const text = raw.toString('latin1');
    const start = text.indexOf('\r\n\r\n');
    const end = boundary ? text.lastIndexOf(`\r\n--${boundary}`) : -1;
    if (!boundary || start < 0 || end < start) return json(res, 400, { detail: 'expected multipart/form-data with a content part' });
    const contentType = /content-type:\s*([^\r\n]+)/i.exec(text.slice(0, start))?.[1] ?? 'application/octet-stream';
    const id = `fakefile${++this.counter}`;
    this.uploads.set(id, { bytes: raw.subarray(start + 4, end), contentType });
    json(res, 201, { id, name: 'input', content_type: contentType, size: end - start - 4, urls: { get: `${this.base}/v1/files/${id}` } });
  }

  private serveFile(res: ServerResponse, path: string): void {
    const file = this.files.get(path);
    if (!file) return json(res, 404, { detail: 'Not found.' });
    if (this.mode.kind === 'bad_file') {
      res.writeHead(200, { 'Content-Type': file.contentType });
      return void res.end('this is not a media file at all');
    }
    if (this.mode.kind === 'oversized') {
      res.writeHead(200, { 'Content-Type': file.contentType });
      for (let sent = 0; sent < this.mode.bytes; sent += 64 * 1024) res.write(Buffer.alloc(Math.min(64 * 1024, this.mode.bytes - sent)));
      return void res.end();
    }
    res.writeHead(200, { 'Content-Type': file.contentType, 'Content-Length': file.bytes.length });
    res.end(file.bytes);
  }
}

/** Replicate's predictions API on 127.0.0.1, with the failure modes tests need. */
export async function startFakeReplicate(opts: { token?: string; honourWait?: boolean; pollsToFinish?: number } = {}): Promise<FakeReplicate> {
  const fake = new ReplicateFake({ honourWait: opts.honourWait ?? true, pollsToFinish: opts.pollsToFinish ?? 2 }, opts.token);
  const server: Server = createServer((req, res) => {
    fake.handle(req, res).catch((err: unknown) => json(res, 500, { detail: String(err) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: fake.base,
    requests: fake.requests,
    predictions: fake.predictions,
    uploads: fake.uploads,
    options: fake.options,
    setMode: (mode) => {
      fake.mode = { ...mode };
    },
    requestsTo: (part, method) => fake.requests.filter((r) => r.path.includes(part) && (method === undefined || r.method === method)),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
