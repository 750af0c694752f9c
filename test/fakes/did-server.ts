import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { parseMultipart } from './platforms/x.js';
import { readBody } from './read-body.js';

/**
 * What the fake does from now on. `ok`: talks go created → started → done. `error` / `rejected`:
 * talks end that way instead, with `{kind, description}`. `hang`: talks stay `started`.
 * `http_error`: the next `times` requests (only those whose path contains `path`, when given)
 * are answered `status`, with Retry-After when given. `bad_result`: the result file is not a video.
 * `result`: the result file is `bytes`, served as `video/mp4`. `oversized`: the result file is
 * `bytes` long, streamed without a length.
 */
export type DidFakeMode =
  | { kind: 'ok' }
  | { kind: 'error'; errorKind?: string; description?: string }
  | { kind: 'rejected'; errorKind?: string; description?: string }
  | { kind: 'hang' }
  | { kind: 'http_error'; status: number; times: number; retryAfter?: number; path?: string }
  | { kind: 'bad_result' }
  | { kind: 'result'; bytes: Buffer }
  | { kind: 'oversized'; bytes: number };

export interface FakeDidRequest {
  method: string;
  path: string;
  authorization?: string;
  /** The parsed JSON body, when there was one. */
  body?: any;
}

export interface FakeDidUpload {
  id: string;
  /** The multipart field the file came in (`image` or `audio`). */
  field: string;
  filename?: string;
  contentType?: string;
  bytes: Buffer;
  /** What the fake answered: an `s3://` URL, as D-ID does. */
  url: string;
}

export type FakeTalkStatus = 'created' | 'started' | 'done' | 'error' | 'rejected';

export interface FakeDidTalk {
  id: string;
  sourceUrl: string;
  audioUrl: string;
  config: Record<string, unknown> | null;
  status: FakeTalkStatus;
  /** GETs of this talk answered in its current status. */
  polls: number;
  resultUrl: string | null;
  error: { kind: string; description: string } | null;
}

export interface FakeDid {
  url: string;
  /** The one key accepted, sent as `Authorization: Basic <key>`. */
  apiKey: string;
  requests: FakeDidRequest[];
  images: FakeDidUpload[];
  audios: FakeDidUpload[];
  talks: Map<string, FakeDidTalk>;
  /** Every talk's result: a real 1 s MP4 (H.264 + AAC) made at start with the bundled ffmpeg. */
  resultVideo: Buffer;
  /**
   * Mutable. `pollsPerStep`: GETs a talk answers in `created`, then in `started`, before the next
   * GET finds it ended (0: done at its first GET). `delayMs`: every API answer waits this long.
   */
  options: { pollsPerStep: number; delayMs: number };
  setMode(mode: DidFakeMode): void;
  /** Requests whose path contains `pathPart`, e.g. `requestsTo('/talks', 'POST')`. */
  requestsTo(pathPart: string, method?: string): FakeDidRequest[];
  /** Moves a talk one step (created → started → its end) without a poll. */
  advance(talkId: string): FakeDidTalk;
  close(): Promise<void>;
}

let sampleVideo: Promise<Buffer> | undefined;

/** A 1 s 160×160 test pattern with a tone, H.264 + AAC, made once per process. */
function makeSampleVideo(): Promise<Buffer> {
  sampleVideo ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-did-'));
    try {
      const out = join(dir, 'talk.mp4');
      const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-f', 'lavfi', '-i', 'testsrc=size=160x160:rate=25:duration=1', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=1'];
      await promisify(execFile)(ffmpeg.path, [...args, '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', out]);
      return await readFile(out);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return sampleVideo;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** D-ID's error body shape. */
function problem(res: ServerResponse, status: number, kind: string, description: string, headers: Record<string, string> = {}): void {
  json(res, status, { kind, description }, headers);
}

const ERROR_KINDS: Record<number, string> = { 400: 'BadRequestError', 401: 'AuthorizationError', 402: 'InsufficientCreditsError', 404: 'NotFoundError', 429: 'TooManyRequestsError' };

/** D-ID's talks API, as far as the adapter uses it. */
class DidFake {
  readonly requests: FakeDidRequest[] = [];
  readonly images: FakeDidUpload[] = [];
  readonly audios: FakeDidUpload[] = [];
  readonly talks = new Map<string, FakeDidTalk>();
  mode: DidFakeMode = { kind: 'ok' };
  base = '';

  constructor(
    readonly apiKey: string,
    readonly resultVideo: Buffer,
    readonly options: { pollsPerStep: number; delayMs: number },
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/results/')) return this.serveResult(req, res, path);
    const seen: FakeDidRequest = { method: req.method ?? 'GET', path, authorization: req.headers.authorization };
    if ((req.headers['content-type'] ?? '').startsWith('application/json')) seen.body = safeJson(raw);
    this.requests.push(seen);
    if (this.options.delayMs > 0) await new Promise((r) => setTimeout(r, this.options.delayMs));
    if (this.injectedFailure(res, path)) return;
    if (req.headers.authorization !== `Basic ${this.apiKey}`) return problem(res, 401, 'AuthorizationError', 'Unauthorized');
    if (req.method === 'POST' && (path === '/images' || path === '/audios')) return this.upload(req, res, raw, path === '/images' ? 'image' : 'audio');
    if (req.method === 'POST' && path === '/talks') return this.createTalk(res, seen.body);
    const talk = /^\/talks\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && talk) return this.getTalk(res, decodeURIComponent(talk[1]));
    problem(res, 404, 'NotFoundError', `no route ${req.method} ${path}`);
  }

  private injectedFailure(res: ServerResponse, path: string): boolean {
    const mode = this.mode;
    if (mode.kind !== 'http_error' || mode.times <= 0 || (mode.path !== undefined && !path.includes(mode.path))) return false;
    mode.times -= 1;
    const headers: Record<string, string> = mode.retryAfter === undefined ? {} : { 'Retry-After': String(mode.retryAfter) };
    problem(res, mode.status, ERROR_KINDS[mode.status] ?? 'InternalServerError', `injected ${mode.status}`, headers);
    return true;
  }

  private upload(req: IncomingMessage, res: ServerResponse, raw: Buffer, field: 'image' | 'audio'): void {
    const part = parseMultipart(raw, req.headers['content-type'])?.find((p) => p.name === field && p.filename !== undefined);
    if (!part) return problem(res, 400, 'ValidationError', `expected multipart/form-data with a file in "${field}"`);
    const refused = uploadRefusal(field, part.contentType, part.data);
    if (refused) return problem(res, 400, 'ValidationError', refused);
    const id = `${field === 'image' ? 'img' : 'aud'}_${randomBytes(8).toString('hex')}`;
    const url = `s3://d-id-${field}s-fake/fake-user/${id}/${part.filename || field}`;
    const upload: FakeDidUpload = { id, field, filename: part.filename, contentType: part.contentType, bytes: Buffer.from(part.data), url };
    (field === 'image' ? this.images : this.audios).push(upload);
    json(res, 201, field === 'image' ? { id, url } : { id, url, duration: null, moderation_metadata: {} });
  }

  private createTalk(res: ServerResponse, body: any): void {
    const known = (list: FakeDidUpload[], url: unknown) => typeof url === 'string' && (list.some((u) => u.url === url) || /^https?:\/\//.test(url));
    if (!known(this.images, body?.source_url)) return problem(res, 400, 'ValidationError', 'source_url is not an uploaded image or an http(s) URL');
    if (body?.script?.type !== 'audio' || !known(this.audios, body.script.audio_url)) return problem(res, 400, 'ValidationError', 'script must be {type: "audio", audio_url} of an uploaded audio');
    const id = `tlk_${randomBytes(8).toString('hex')}`;
    const talk: FakeDidTalk = { id, sourceUrl: body.source_url, audioUrl: body.script.audio_url, config: body.config ?? null, status: 'created', polls: 0, resultUrl: null, error: null };
    this.talks.set(id, talk);
    json(res, 201, { id, object: 'talk', created_at: new Date().toISOString(), created_by: 'fake|user', status: 'created' });
  }

  private getTalk(res: ServerResponse, id: string): void {
    const talk = this.talks.get(id);
    if (!talk) return problem(res, 404, 'NotFoundError', 'talk not found');
    talk.polls += 1;
    while ((talk.status === 'created' || talk.status === 'started') && talk.polls > this.options.pollsPerStep) {
      const before = talk.status;
      this.advance(id);
      if (talk.status === before) break;
      // This GET is the first answered in the new status.
      talk.polls = 1;
    }
    json(res, 200, talkBody(talk));
  }

  advance(id: string): FakeDidTalk {
    const talk = this.talks.get(id);
    if (!talk) throw new Error(`no talk ${id}`);
    if (talk.status === 'created') talk.status = 'started';
    else if (talk.status === 'started') this.end(talk);
    return talk;
  }

  private end(talk: FakeDidTalk): void {
    const mode = this.mode;
    if (mode.kind === 'hang') return;
    if (mode.kind === 'error' || mode.kind === 'rejected') {
      talk.status = mode.kind;
      talk.error = { kind: mode.errorKind ?? (mode.kind === 'error' ? 'FaceError' : 'ModerationError'), description: mode.description ?? `the fake ${mode.kind === 'error' ? 'failed' : 'rejected'} this talk` };
      return;
    }
    talk.status = 'done';
    talk.resultUrl = `${this.base}/results/${talk.id}/talk.mp4?X-Amz-Signature=fake`;
  }

  /** Like a pre-signed S3 URL: no Authorization accepted (S3 refuses a second auth mechanism). */
  private serveResult(req: IncomingMessage, res: ServerResponse, path: string): void {
    this.requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
    if (req.headers.authorization) {
      res.writeHead(400, { 'Content-Type': 'application/xml' });
      res.end('<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>');
      return;
    }
    const id = /^\/results\/([^/]+)\//.exec(path)?.[1];
    if (!id || this.talks.get(id)?.status !== 'done') return problem(res, 404, 'NotFoundError', 'no such result');
    const mode = this.mode;
    if (mode.kind === 'oversized') return streamFiller(res, mode.bytes);
    const body = mode.kind === 'bad_result' ? Buffer.from('<html>not a video</html>') : mode.kind === 'result' ? mode.bytes : this.resultVideo;
    res.writeHead(200, { 'Content-Type': mode.kind === 'bad_result' ? 'text/html' : 'video/mp4', 'Content-Length': String(body.length) });
    res.end(body);
  }
}

function talkBody(talk: FakeDidTalk): Record<string, unknown> {
  return {
    id: talk.id,
    object: 'talk',
    status: talk.status,
    source_url: talk.sourceUrl,
    audio_url: talk.audioUrl,
    config: talk.config,
    created_by: 'fake|user',
    ...(talk.resultUrl ? { result_url: talk.resultUrl, duration: 1 } : {}),
    ...(talk.error ? { error: talk.error } : {}),
  };
}

/** `bytes` of filler in chunks, without a Content-Length, so only a reader-side cap stops it. */
function streamFiller(res: ServerResponse, bytes: number): void {
  res.writeHead(200, { 'Content-Type': 'video/mp4' });
  const chunk = Buffer.alloc(64 * 1024, 0x2a);
  let left = bytes;
  const pump = () => {
    while (left > 0) {
      const part = chunk.subarray(0, Math.min(chunk.length, left));
      left -= part.length;
      if (!res.write(part)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('error', () => undefined);
  pump();
}

/** D-ID takes JPEG or PNG images and mp3, wav, m4a/mp4, flac or ogg audio, declared and actual alike. */
const IMAGE_TYPES: Record<string, (b: Buffer) => boolean> = {
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
};
const isMp3 = (b: Buffer) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0);
const isWav = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WAVE';
const isMp4 = (b: Buffer) => b.subarray(4, 8).toString('latin1') === 'ftyp';
const AUDIO_TYPES: Record<string, (b: Buffer) => boolean> = {
  'audio/mpeg': isMp3,
  'audio/mp3': isMp3,
  'audio/wav': isWav,
  'audio/x-wav': isWav,
  'audio/wave': isWav,
  'audio/mp4': isMp4,
  'audio/x-m4a': isMp4,
  'audio/flac': (b) => b.subarray(0, 4).toString('latin1') === 'fLaC',
  'audio/ogg': (b) => b.subarray(0, 4).toString('latin1') === 'OggS',
};

function uploadRefusal(field: 'image' | 'audio', declared: string | undefined, bytes: Buffer): string | null {
  const types = field === 'image' ? IMAGE_TYPES : AUDIO_TYPES;
  const type = (declared ?? '').split(';')[0].trim().toLowerCase();
  if (!types[type]) return `${field} must be one of ${Object.keys(types).join(', ')}; got ${type || 'no content type'}`;
  return types[type](bytes) ? null : `the ${field} is not a valid ${type} file`;
}

function safeJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

export async function startFakeDid(opts: { apiKey?: string; pollsPerStep?: number; delayMs?: number } = {}): Promise<FakeDid> {
  const apiKey = opts.apiKey ?? `${Buffer.from('fake@example.com').toString('base64')}:fakepassword`;
  const fake = new DidFake(apiKey, await makeSampleVideo(), { pollsPerStep: opts.pollsPerStep ?? 1, delayMs: opts.delayMs ?? 0 });
  const server: Server = createServer((req, res) => {
    fake.handle(req, res).catch((err: unknown) => problem(res, 500, 'InternalServerError', String(err)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: fake.base,
    apiKey,
    requests: fake.requests,
    images: fake.images,
    audios: fake.audios,
    talks: fake.talks,
    resultVideo: fake.resultVideo,
    options: fake.options,
    setMode: (mode) => {
      fake.mode = { ...mode };
    },
    requestsTo: (part, method) => fake.requests.filter((r) => r.path.includes(part) && (method === undefined || r.method === method)),
    advance: (id) => fake.advance(id),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
