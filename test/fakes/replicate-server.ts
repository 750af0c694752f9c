import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, inflateRawSync } from 'node:zlib';
import sharp from 'sharp';
import { readBody } from './read-body.js';

/**
 * What the fake does from now on. `ok`: predictions succeed (at once under `Prefer: wait` when
 * `honourWait`, else starting → processing → succeeded over polls). `fail`: they end `failed`
 * with `error`, and so do trainings when they finish. `http_error`: the next `times` API requests
 * (only those whose path contains `path`, when given) are answered `status`. `hang`: they never
 * finish, and trainings stop moving. `malformed_json`: create answers broken JSON.
 * `malformed_output`: success with an output that is not file URLs. `bad_file`: output files are
 * not media. `oversized`: output files are `bytes` long, streamed without a length.
 */
export type ReplicateFakeMode =
  | { kind: 'ok' }
  | { kind: 'fail'; error?: string }
  | { kind: 'http_error'; status: number; times: number; retryAfter?: number; path?: string }
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
  /** The upload's `metadata` part, parsed, when it had one. */
  metadata?: unknown;
}

/** The trainer models the fake knows from the start, with the one version each can train on. */
export const FAKE_TRAINERS = {
  'ostris/flux-dev-lora-trainer': 'b6af14222e6bd9be257cbc1ea4afda3cd0503e1133083b9d1de0364d8568e6ef',
  'stability-ai/sdxl': '39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b',
} as const;

const FLUX_DEV_INPUTS = ['prompt', 'aspect_ratio', 'image', 'prompt_strength', 'num_outputs', 'num_inference_steps', 'guidance', 'seed', 'output_format', 'output_quality', 'disable_safety_checker', 'go_fast', 'megapixels'];

/**
 * The models the fake runs, with the input names each one's schema declares: Replicate validates
 * an input against the model version's OpenAPI schema and refuses a property it does not declare
 * (422), a model it does not know (404) and a version that is not one of the model's. The image
 * models' inputs are their published schemas. The two video models stand for whatever
 * REPLICATE_VIDEO_MODEL and REPLICATE_MOTION_MODEL name: their lists are the generic video input
 * the adapter sends (see docs/testing.md), since the fake renders any video model alike.
 * `official`: runnable by name (`/v1/models/{owner}/{name}/predictions`); else only by version.
 */
export const FAKE_MODELS: Readonly<Record<string, { official: boolean; versions: readonly string[]; inputs: readonly string[] }>> = {
  'black-forest-labs/flux-dev': { official: true, versions: [], inputs: FLUX_DEV_INPUTS },
  'black-forest-labs/flux-dev-lora': { official: true, versions: [], inputs: [...FLUX_DEV_INPUTS, 'lora_weights', 'lora_scale', 'extra_lora', 'extra_lora_scale'] },
  'stability-ai/sdxl': {
    official: false,
    versions: ['39ed52f2a78e934b3ba6e2a89f5b1c712de7dfea535525255b1aa35c5565e08b'],
    inputs: ['prompt', 'negative_prompt', 'image', 'mask', 'width', 'height', 'num_outputs', 'scheduler', 'num_inference_steps', 'guidance_scale', 'prompt_strength', 'seed', 'refine', 'high_noise_frac', 'refine_steps', 'apply_watermark', 'lora_scale', 'replicate_weights', 'disable_safety_checker'],
  },
  'minimax/video-01': { official: true, versions: [], inputs: ['prompt', 'prompt_optimizer', 'first_frame_image', 'duration', 'aspect_ratio'] },
  'kwaivgi/kling-v1.6-pro': { official: true, versions: [], inputs: ['prompt', 'negative_prompt', 'image', 'video', 'duration', 'aspect_ratio', 'cfg_scale'] },
};

/**
 * How trainings move. Each tick moves one: the first from starting to processing (a tqdm bar in
 * its logs), the `ticksToFinish`-th to its end. `tickMs` > 0 ticks every running training that
 * often (read when a training is created and at each tick); 0 leaves it to `advance`/`finish`.
 * The webhook knobs apply to the events trainings send as they move.
 */
export interface FakeTrainingOptions {
  ticksToFinish: number;
  tickMs: number;
  /** Events are recorded as dropped and never sent. */
  dropWebhooks: boolean;
  /** Every event is sent twice with the same `webhook-id`, as Replicate's retries are. */
  duplicateWebhooks: boolean;
  /** Events are signed with a key that is not the secret. */
  forgeSignature: boolean;
  /** Events carry a timestamp an hour old. */
  staleTimestamp: boolean;
}

/** What the fake read in a training's `input_images` ZIP. */
export interface FakeTrainingArchive {
  /** Every entry's name, in archive order. */
  entries: string[];
  /** Each image file's caption, from the `.txt` entry of the same stem. */
  captions: Record<string, string>;
  /** `captions.csv`, when there was one. */
  csv: string | null;
}

export type FakeTrainingStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface FakeTraining {
  id: string;
  /** The trainer, `owner/name`. */
  model: string;
  version: string;
  destination: string;
  input: Record<string, any>;
  status: FakeTrainingStatus;
  logs: string;
  output: { version: string; weights: string } | null;
  error: string | null;
  webhook: string | null;
  webhookEventsFilter: string[];
  /** Null when `input_images` was not a readable ZIP (the training then fails at its first tick). */
  archive: FakeTrainingArchive | null;
  archiveError: string | null;
  ticks: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
}

export interface FakeModel {
  owner: string;
  name: string;
  visibility: string;
  hardware: string;
  description: string | null;
  /** Version ids, oldest first; trainings into a model add one. */
  versions: string[];
}

export type FakeWebhookEvent = 'start' | 'logs' | 'completed';

export interface FakeWebhookDelivery {
  trainingId: string;
  event: FakeWebhookEvent;
  webhookId: string;
  timestamp: number;
  signature: string;
  url: string;
  /** The exact bytes sent (the training object as JSON). */
  body: string;
  dropped: boolean;
  /** What the receiver answered; null while in flight, when dropped or unreachable. */
  status: number | null;
  error: string | null;
}

export interface SendWebhookOptions {
  /** Default: from the training's status (starting → start, processing → logs, else completed). */
  event?: FakeWebhookEvent;
  /** Reuse a delivery's id, as a retry by Replicate does. */
  webhookId?: string;
  forgeSignature?: boolean;
  staleTimestamp?: boolean;
  /** Default: the training's `webhook`. */
  url?: string;
}

/** Requests kept waiting, unanswered, until released (a slow upload, a provider that stalls). */
export interface FakeHold {
  /** How many requests this hold has caught so far. */
  readonly held: number;
  /** Answers the requests it holds and lets every later one through. */
  release(): void;
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
  /** Holds every API request whose path contains `pathPart` (and of `method`, when given), body read, until released. */
  hold(pathPart: string, method?: string): FakeHold;
  close(): Promise<void>;
  /** The token's account (`GET /v1/account`): the only owner models may be created for. */
  account: string;
  /** The account's webhook signing secret, `whsec_…`. */
  secret: string;
  /** Models by `owner/name`: the trainers of FAKE_TRAINERS and every model created. */
  models: Map<string, FakeModel>;
  trainings: Map<string, FakeTraining>;
  /** Mutable, see FakeTrainingOptions. */
  trainingOptions: FakeTrainingOptions;
  /** Every webhook event sent or dropped, in order. */
  webhookDeliveries: FakeWebhookDelivery[];
  /** One tick of a training; resolves once that tick's webhook events were delivered. */
  advance(trainingId: string): Promise<FakeTraining>;
  /** Ticks a training to its end (succeeded, or failed in `fail` mode). */
  finish(trainingId: string): Promise<FakeTraining>;
  /** Sends one webhook event for a training now, knobs aside; resolves once the receiver answered. */
  sendWebhook(trainingId: string, opts?: SendWebhookOptions): Promise<FakeWebhookDelivery>;
  /** Resolves when no webhook event is in flight. */
  webhooksSettled(): Promise<void>;
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
  readonly training: TrainingsFake;
  private readonly holds = new Set<{ pathPart: string; method?: string; held: number; gate: Promise<void>; open(): void }>();

  constructor(
    readonly options: { honourWait: boolean; pollsToFinish: number },
    private readonly token: string | undefined,
    trainingSetup: { account: string; secret: string; options: FakeTrainingOptions },
  ) {
    this.training = new TrainingsFake(this, trainingSetup.account, trainingSetup.secret, trainingSetup.options);
  }

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
    await this.heldBack(req.method ?? '', path);
    if (this.mode.kind === 'http_error' && this.mode.times > 0 && (this.mode.path === undefined || path.includes(this.mode.path))) {
      this.mode.times--;
      return json(res, this.mode.status, { detail: 'scripted failure' }, this.mode.retryAfter !== undefined ? { 'Retry-After': String(this.mode.retryAfter) } : {});
    }
    await this.route(req, res, path, raw, body);
  }

  hold(pathPart: string, method?: string): FakeHold {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const hold = { pathPart, method, held: 0, gate, open };
    this.holds.add(hold);
    return {
      get held() {
        return hold.held;
      },
      release: () => {
        this.holds.delete(hold);
        hold.open();
      },
    };
  }

  /** Lets go of every hold: a closing fake must not keep requests open. */
  releaseHolds(): void {
    for (const hold of this.holds) hold.open();
    this.holds.clear();
  }

  private async heldBack(method: string, path: string): Promise<void> {
    for (const hold of this.holds) {
      if (!path.includes(hold.pathPart) || (hold.method !== undefined && hold.method !== method)) continue;
      hold.held++;
      await hold.gate;
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer, body: any): Promise<void> {
    const post = req.method === 'POST';
    let m: RegExpExecArray | null;
    if (post && (m = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path))) {
      const model = FAKE_MODELS[`${m[1]}/${m[2]}`];
      if (!model?.official) return json(res, 404, { title: 'Not found', detail: `Model ${m[1]}/${m[2]} does not exist or cannot be run by name.`, status: 404 });
      return this.create(req, res, `${m[1]}/${m[2]}`, body, model.inputs);
    }
    if (post && path === '/v1/predictions') {
      const found = this.versionOf(body?.version);
      if (typeof found === 'string') return json(res, 422, { title: 'Invalid version', detail: found, status: 422 });
      return this.create(req, res, String(body.version), body, found.inputs);
    }
    if (req.method === 'GET' && (m = /^\/v1\/predictions\/([^/]+)$/.exec(path))) return this.poll(res, m[1]);
    if (post && (m = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path))) return this.cancel(res, m[1]);
    if (post && path === '/v1/files') return this.upload(req, res, raw);
    if (await this.training.route(req.method ?? '', path, body, res)) return;
    json(res, 404, { detail: 'Not found.' });
  }

  /**
   * The model a `version` names: `owner/name:id` or a bare 64-hex id of a model the fake knows, or
   * of a model trained into (its inputs are the trainer's, unchecked here); why not, as a message.
   */
  private versionOf(version: unknown): { inputs: readonly string[] | null } | string {
    if (typeof version !== 'string' || version.trim() === '') return '- version: is required and must be a non-empty string';
    const [ref, id] = version.includes(':') ? version.split(':') : [undefined, version];
    if (!/^[0-9a-f]{64}$/.test(id ?? '')) return `- version: ${version} is not a version id`;
    for (const [name, model] of Object.entries(FAKE_MODELS)) {
      if ((ref === undefined || ref === name) && model.versions.includes(id)) return { inputs: model.inputs };
    }
    for (const [name, model] of this.training.models) {
      if ((ref === undefined || ref === name) && model.versions.includes(id)) return { inputs: null };
    }
    return `Invalid version or not permitted: ${version}`;
  }

  private view(p: FakePrediction) {
    const urls = { get: `${this.base}/v1/predictions/${p.id}`, cancel: `${this.base}/v1/predictions/${p.id}/cancel` };
    const output = p.status === 'succeeded' ? p.output : null;
    return { id: p.id, model: p.model, version: 'fakeversion', input: p.input, logs: '', output, error: p.error, status: p.status, created_at: new Date().toISOString(), urls };
  }

  private async create(req: IncomingMessage, res: ServerResponse, model: string, body: any, inputs: readonly string[] | null): Promise<void> {
    if (this.mode.kind === 'malformed_json') {
      res.writeHead(201, { 'Content-Type': 'application/json' });
      return void res.end('{"id": "broken", "status": ');
    }
    if (typeof body?.input !== 'object' || body.input === null || Array.isArray(body.input)) return json(res, 422, { detail: '- input: Invalid type. Expected: object' });
    const unknown = inputs ? Object.keys(body.input).filter((k) => !inputs.includes(k)) : [];
    if (unknown.length > 0) {
      const invalid = unknown.map((k) => ({ type: 'additional_property_not_allowed', field: 'input', description: `Additional property ${k} is not allowed` }));
      return json(res, 422, { title: 'Input validation failed', detail: invalid.map((i) => `- input: ${i.description}`).join('\n'), status: 422, invalid_fields: invalid });
    }
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
      Object.assign(p, { status: 'failed', error: this.mode.error ?? 'fake failure' });
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
    const boundary = /boundary="?([^";]+)"?/.exec(header(req, 'content-type') ?? '')?.[1];
    const parts = boundary ? formParts(raw, boundary) : [];
    const content = parts.find((p) => p.name === 'content');
    if (!content) return json(res, 400, { detail: 'expected multipart/form-data with a content part' });
    const metadataPart = parts.find((p) => p.name === 'metadata');
    let metadata: unknown;
    try {
      metadata = metadataPart ? JSON.parse(metadataPart.body.toString('utf8')) : undefined;
    } catch {
      return json(res, 400, { detail: 'metadata is not JSON' });
    }
    const contentType = content.contentType ?? 'application/octet-stream';
    const id = `fakefile${++this.counter}`;
    this.uploads.set(id, { bytes: content.body, contentType, metadata });
    const name = content.filename ?? 'input';
    json(res, 201, { id, name, content_type: contentType, size: content.body.length, metadata: metadata ?? {}, urls: { get: `${this.base}/v1/files/${id}` } });
  }

  /** A file this fake serves or was sent, by the URL it answered for it. */
  fileAt(url: string): StoredFile | undefined {
    if (!url.startsWith(`${this.base}/`)) return undefined;
    const path = url.slice(this.base.length);
    const upload = /^\/v1\/files\/([^/?#]+)$/.exec(path);
    return upload ? this.uploads.get(upload[1]) : this.files.get(path);
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

interface FormPart {
  name: string | null;
  filename: string | null;
  contentType: string | null;
  body: Buffer;
}

/** The parts of a multipart/form-data body. */
function formParts(raw: Buffer, boundary: string): FormPart[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  for (let at = raw.indexOf(delimiter); at >= 0; ) {
    const start = at + delimiter.length;
    const next = raw.indexOf(Buffer.from(`\r\n--${boundary}`), start);
    if (raw.subarray(start, start + 2).toString('latin1') === '--' || next < 0) break;
    const chunk = raw.subarray(start + 2, next);
    const split = chunk.indexOf('\r\n\r\n');
    if (split >= 0) {
      const head = chunk.subarray(0, split).toString('utf8');
      parts.push({
        name: /;\s*name="([^"]*)"/i.exec(head)?.[1] ?? null,
        filename: /;\s*filename="([^"]*)"/i.exec(head)?.[1] ?? null,
        contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? null,
        body: chunk.subarray(split + 4),
      });
    }
    at = next + 2;
  }
  return parts;
}

/** The entries of a ZIP (stored or deflated), each checked against its CRC-32. */
export function readZip(zip: Buffer): { name: string; data: Buffer }[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > zip.length) throw new Error('no end of central directory record');
  const count = zip.readUInt16LE(eocd + 10);
  const entries: { name: string; data: Buffer }[] = [];
  for (let p = zip.readUInt32LE(eocd + 16), i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const [method, crc, size] = [zip.readUInt16LE(p + 10), zip.readUInt32LE(p + 16), zip.readUInt32LE(p + 20)];
    const nameLength = zip.readUInt16LE(p + 28);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLength);
    const local = zip.readUInt32LE(p + 42);
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`bad local header for ${name}`);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataStart, dataStart + size);
    const data = method === 0 ? raw : method === 8 ? inflateRawSync(raw) : null;
    if (!data) throw new Error(`unsupported compression method ${method} for ${name}`);
    if (crc32(data) !== crc) throw new Error(`CRC mismatch for ${name}`);
    entries.push({ name, data });
    p += 46 + nameLength + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return entries;
}

/** What the flux and sdxl trainers would see: the images, their `.txt` captions, `captions.csv`. */
function archiveOf(zip: Buffer): FakeTrainingArchive {
  const entries = readZip(zip);
  const texts = new Map(entries.filter((e) => e.name.endsWith('.txt')).map((e) => [e.name.slice(0, -4), e.data.toString('utf8')]));
  const captions: Record<string, string> = {};
  for (const { name } of entries) {
    const image = /^(.*)\.(png|jpe?g|webp|gif|bmp)$/i.exec(name);
    const caption = image ? texts.get(image[1]) : undefined;
    if (caption !== undefined) captions[name] = caption;
  }
  const csv = entries.find((e) => /caption[^/]*\.csv$/i.test(e.name));
  return { entries: entries.map((e) => e.name), captions, csv: csv ? csv.data.toString('utf8') : null };
}

const WEBHOOK_EVENTS = ['start', 'output', 'logs', 'completed'];

/** The steps the trainer was asked for (flux `steps`, sdxl `max_train_steps`). */
function stepsOf(t: FakeTraining): number {
  return Math.max(1, Number(t.input.steps ?? t.input.max_train_steps ?? 1000));
}

function isTerminalTraining(t: FakeTraining): boolean {
  return t.status === 'succeeded' || t.status === 'failed' || t.status === 'canceled';
}

/** The ai-toolkit progress bar flux-fine-tuner prints, for `done` of `total` steps. */
function progressBar(done: number, total: number): string {
  const pct = Math.floor((done / total) * 100);
  const filled = Math.floor(pct / 10);
  return `flux_train_replicate: ${String(pct).padStart(3)}%|${'█'.repeat(filled)}${' '.repeat(10 - filled)}| ${done}/${total} [00:42<00:51,  1.50it/s, lr: 4.0e-04 loss: 3.7e-01]`;
}

/** Replicate's models, trainings and webhook secret routes, and the signed webhooks trainings send. */
class TrainingsFake {
  readonly models = new Map<string, FakeModel>();
  readonly trainings = new Map<string, FakeTraining>();
  readonly deliveries: FakeWebhookDelivery[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly closing = new AbortController();
  private counter = 0;

  constructor(
    private readonly host: ReplicateFake,
    readonly account: string,
    readonly secret: string,
    readonly options: FakeTrainingOptions,
  ) {
    for (const [ref, version] of Object.entries(FAKE_TRAINERS)) {
      const [owner, name] = ref.split('/');
      this.models.set(ref, { owner, name, visibility: 'public', hardware: 'gpu-h100', description: 'A trainer.', versions: [version] });
    }
  }

  /** Answers the request when it is one of these routes; false otherwise. */
  async route(method: string, path: string, body: any, res: ServerResponse): Promise<boolean> {
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/v1/account') json(res, 200, { type: 'user', username: this.account, name: 'Fake Owner', github_url: null });
    else if (method === 'GET' && path === '/v1/webhooks/default/secret') json(res, 200, { key: this.secret });
    else if (method === 'GET' && path === '/v1/models') json(res, 200, { next: null, previous: null, results: [...this.models.values()].map((x) => this.modelView(x)) });
    else if (method === 'POST' && path === '/v1/models') this.createModel(res, body);
    else if (method === 'GET' && (m = /^\/v1\/models\/([^/]+)\/([^/]+)$/.exec(path))) this.getModel(res, `${m[1]}/${m[2]}`);
    else if (method === 'POST' && (m = /^\/v1\/models\/([^/]+)\/([^/]+)\/versions\/([^/]+)\/trainings$/.exec(path))) this.createTraining(res, `${m[1]}/${m[2]}`, m[3], body);
    else if (method === 'GET' && (m = /^\/v1\/trainings\/([^/]+)$/.exec(path))) this.getTraining(res, m[1]);
    else if (method === 'POST' && (m = /^\/v1\/trainings\/([^/]+)\/cancel$/.exec(path))) this.cancel(res, m[1]);
    else return false;
    return true;
  }

  private modelView(x: FakeModel) {
    const latest = x.versions.at(-1);
    return {
      url: `https://replicate.com/${x.owner}/${x.name}`,
      ...{ owner: x.owner, name: x.name, description: x.description, visibility: x.visibility },
      ...{ github_url: null, paper_url: null, license_url: null, run_count: 0, cover_image_url: null, default_example: null },
      latest_version: latest ? { id: latest, created_at: new Date().toISOString(), cog_version: '0.9.0', openapi_schema: {} } : null,
    };
  }

  private createModel(res: ServerResponse, body: any): void {
    const { owner, name, visibility, hardware } = body ?? {};
    if (owner !== this.account) return json(res, 403, { detail: `You cannot create models for ${String(owner)}.` });
    if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9._-]*$/.test(name)) return json(res, 422, { detail: '- name: must be lower case letters, digits, dashes, underscores or dots' });
    if (visibility !== 'public' && visibility !== 'private') return json(res, 422, { detail: '- visibility: must be public or private' });
    if (typeof hardware !== 'string' || hardware === '') return json(res, 422, { detail: '- hardware: is required' });
    if (this.models.has(`${owner}/${name}`)) return json(res, 409, { detail: 'A model with that name already exists.' });
    const model: FakeModel = { owner, name, visibility, hardware, description: typeof body.description === 'string' ? body.description : null, versions: [] };
    this.models.set(`${owner}/${name}`, model);
    json(res, 201, this.modelView(model));
  }

  private getModel(res: ServerResponse, ref: string): void {
    const model = this.models.get(ref);
    if (!model) return json(res, 404, { detail: 'Not found.' });
    json(res, 200, this.modelView(model));
  }

  private createTraining(res: ServerResponse, trainer: string, version: string, body: any): void {
    if (!this.models.get(trainer)?.versions.includes(version)) return json(res, 404, { detail: `No version ${version} of ${trainer}.` });
    const refused = this.refusal(body);
    if (refused) return json(res, refused.status, { detail: refused.detail });
    const t = this.newTraining(trainer, version, body);
    this.trainings.set(t.id, t);
    json(res, 201, this.view(t));
    void this.emit(t, 'start');
    this.schedule(t);
  }

  /** Why Replicate would refuse this training request, if it would. */
  private refusal(body: any): { status: number; detail: string } | null {
    if (typeof body?.destination !== 'string' || !this.models.has(body.destination)) return { status: 404, detail: 'The destination model does not exist.' };
    if (typeof body.input !== 'object' || body.input === null) return { status: 422, detail: '- input: Invalid type. Expected: object' };
    if (typeof body.input.input_images !== 'string' || !this.host.fileAt(body.input.input_images)) return { status: 422, detail: '- input_images: could not fetch the file' };
    if (body.webhook !== undefined && (typeof body.webhook !== 'string' || !/^https?:\/\//.test(body.webhook))) return { status: 422, detail: '- webhook: must be a URL' };
    const filter = body.webhook_events_filter;
    if (filter !== undefined && (!Array.isArray(filter) || filter.some((e: unknown) => !WEBHOOK_EVENTS.includes(e as string)))) {
      return { status: 422, detail: '- webhook_events_filter: unknown event' };
    }
    return null;
  }

  private newTraining(trainer: string, version: string, body: any): FakeTraining {
    let archive: FakeTrainingArchive | null = null;
    let archiveError: string | null = null;
    try {
      archive = archiveOf(this.host.fileAt(body.input.input_images)!.bytes);
    } catch (err) {
      archiveError = `input_images is not a readable zip: ${(err as Error).message}`;
    }
    return {
      ...{ id: `faketrain${++this.counter}`, model: trainer, version, destination: body.destination, input: body.input },
      ...{ status: 'starting', logs: '', output: null, error: null, ticks: 0, archive, archiveError },
      webhook: body.webhook ?? null,
      webhookEventsFilter: body.webhook_events_filter ?? ['output', 'completed'],
      ...{ createdAt: new Date().toISOString(), startedAt: null, completedAt: null },
    };
  }

  view(t: FakeTraining) {
    const urls = { get: `${this.host.base}/v1/trainings/${t.id}`, cancel: `${this.host.base}/v1/trainings/${t.id}/cancel` };
    return {
      ...{ id: t.id, model: t.model, version: t.version, destination: t.destination, input: t.input, logs: t.logs, output: t.output, error: t.error, status: t.status },
      ...{ created_at: t.createdAt, started_at: t.startedAt, completed_at: t.completedAt, urls },
      ...(t.webhook ? { webhook: t.webhook, webhook_events_filter: t.webhookEventsFilter } : {}),
      ...(isTerminalTraining(t) ? { metrics: { predict_time: 12.5 } } : {}),
    };
  }

  private getTraining(res: ServerResponse, id: string): void {
    const t = this.trainings.get(id);
    if (!t) return json(res, 404, { detail: 'Not found.' });
    json(res, 200, this.view(t));
  }

  private cancel(res: ServerResponse, id: string): void {
    const t = this.trainings.get(id);
    if (!t) return json(res, 404, { detail: 'Not found.' });
    if (!isTerminalTraining(t)) {
      Object.assign(t, { status: 'canceled', output: null, completedAt: new Date().toISOString() });
      void this.emit(t, 'completed');
    }
    json(res, 200, this.view(t));
  }

  /** One step: starting → processing with a progress bar, the last step to its end. */
  async tick(t: FakeTraining): Promise<void> {
    if (isTerminalTraining(t) || this.host.mode.kind === 'hang') return;
    t.ticks++;
    t.startedAt ??= new Date().toISOString();
    if (t.archiveError || t.ticks >= Math.max(1, this.options.ticksToFinish)) return this.complete(t);
    const total = stepsOf(t);
    t.status = 'processing';
    t.logs += `${progressBar(Math.floor((total * t.ticks) / this.options.ticksToFinish), total)}\n`;
    await this.emit(t, 'logs');
  }

  private async complete(t: FakeTraining): Promise<void> {
    const now = new Date().toISOString();
    const mode = this.host.mode;
    const failure = t.archiveError ?? (mode.kind === 'fail' ? (mode.error ?? 'fake training failure') : null);
    if (failure) {
      Object.assign(t, { status: 'failed', error: failure, completedAt: now });
    } else {
      const hash = createHmac('sha256', 'fake').update(t.id).digest('hex');
      const weights = `/files/${t.id}/trained_model.tar`;
      this.host.files.set(weights, { bytes: Buffer.from(`fake LoRA weights of ${t.id}`), contentType: 'application/x-tar' });
      this.models.get(t.destination)?.versions.push(hash);
      Object.assign(t, { status: 'succeeded', output: { version: `${t.destination}:${hash}`, weights: `${this.host.base}${weights}` }, completedAt: now });
      t.logs += `${progressBar(stepsOf(t), stepsOf(t))}\n`;
    }
    await this.emit(t, 'completed');
  }

  async finish(t: FakeTraining): Promise<void> {
    if (this.host.mode.kind === 'hang') throw new Error('the fake is in hang mode: trainings do not move');
    while (!isTerminalTraining(t)) await this.tick(t);
  }

  private schedule(t: FakeTraining): void {
    if (this.options.tickMs <= 0 || isTerminalTraining(t)) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.tick(t);
      this.schedule(t);
    }, this.options.tickMs);
    this.timers.add(timer);
  }

  /** Queues an event behind the training's earlier ones, with the training as it is now, under the knobs. */
  private emit(t: FakeTraining, event: FakeWebhookEvent): Promise<void> {
    if (!t.webhook || !t.webhookEventsFilter.includes(event)) return Promise.resolve();
    const body = JSON.stringify(this.view(t));
    const url = t.webhook;
    const send = async (): Promise<void> => {
      if (this.options.dropWebhooks) return void this.deliveries.push({ ...this.signed(t.id, event, url, body, {}), dropped: true, status: null, error: null });
      const knobs = { forgeSignature: this.options.forgeSignature, staleTimestamp: this.options.staleTimestamp };
      const first = await this.deliver(t.id, event, url, body, knobs);
      if (this.options.duplicateWebhooks) await this.deliver(t.id, event, url, body, { ...knobs, webhookId: first.webhookId });
    };
    const chain = (this.chains.get(t.id) ?? Promise.resolve()).then(send);
    this.chains.set(t.id, chain);
    return this.track(chain);
  }

  async sendWebhook(id: string, opts: SendWebhookOptions = {}): Promise<FakeWebhookDelivery> {
    const t = this.trainings.get(id);
    if (!t) throw new Error(`no training ${id}`);
    const url = opts.url ?? t.webhook;
    if (!url) throw new Error(`training ${id} has no webhook`);
    const event = opts.event ?? (t.status === 'starting' ? 'start' : t.status === 'processing' ? 'logs' : 'completed');
    return this.track(this.deliver(id, event, url, JSON.stringify(this.view(t)), opts));
  }

  private signed(trainingId: string, event: FakeWebhookEvent, url: string, body: string, opts: SendWebhookOptions) {
    const webhookId = opts.webhookId ?? `msg_${randomBytes(12).toString('hex')}`;
    const timestamp = Math.floor(Date.now() / 1000) - (opts.staleTimestamp ? 3600 : 0);
    const key = opts.forgeSignature ? randomBytes(32) : Buffer.from(this.secret.slice('whsec_'.length), 'base64');
    const signature = `v1,${createHmac('sha256', key).update(`${webhookId}.${timestamp}.${body}`).digest('base64')}`;
    return { trainingId, event, webhookId, timestamp, signature, url, body };
  }

  private async deliver(trainingId: string, event: FakeWebhookEvent, url: string, body: string, opts: SendWebhookOptions): Promise<FakeWebhookDelivery> {
    const delivery: FakeWebhookDelivery = { ...this.signed(trainingId, event, url, body, opts), dropped: false, status: null, error: null };
    this.deliveries.push(delivery);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'webhook-id': delivery.webhookId, 'webhook-timestamp': String(delivery.timestamp), 'webhook-signature': delivery.signature },
        body,
        signal: AbortSignal.any([this.closing.signal, AbortSignal.timeout(10_000)]),
      });
      await res.arrayBuffer();
      delivery.status = res.status;
    } catch (err) {
      delivery.error = (err as Error).message;
    }
    return delivery;
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.closing.abort();
  }
}

/** Replicate's predictions, files, models and trainings APIs on 127.0.0.1, with the failure modes tests need. */
export async function startFakeReplicate(
  opts: { token?: string; honourWait?: boolean; pollsToFinish?: number; account?: string; webhookSecret?: string; training?: Partial<FakeTrainingOptions> } = {},
): Promise<FakeReplicate> {
  const training: FakeTrainingOptions = { ticksToFinish: 3, tickMs: 50, dropWebhooks: false, duplicateWebhooks: false, forgeSignature: false, staleTimestamp: false, ...opts.training };
  const secret = opts.webhookSecret ?? `whsec_${randomBytes(32).toString('base64')}`;
  const fake = new ReplicateFake({ honourWait: opts.honourWait ?? true, pollsToFinish: opts.pollsToFinish ?? 2 }, opts.token, { account: opts.account ?? 'fakeowner', secret, options: training });
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
    hold: (part, method) => fake.hold(part, method),
    close: () =>
      new Promise<void>((r) => {
        fake.releaseHolds();
        fake.training.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
    ...trainingControls(fake.training),
  };
}

function trainingControls(trainings: TrainingsFake): Omit<FakeReplicate, 'url' | 'requests' | 'predictions' | 'uploads' | 'options' | 'setMode' | 'requestsTo' | 'hold' | 'close'> {
  const byId = (id: string): FakeTraining => {
    const t = trainings.trainings.get(id);
    if (!t) throw new Error(`no training ${id}`);
    return t;
  };
  return {
    account: trainings.account,
    secret: trainings.secret,
    models: trainings.models,
    trainings: trainings.trainings,
    trainingOptions: trainings.options,
    webhookDeliveries: trainings.deliveries,
    advance: async (id) => {
      await trainings.tick(byId(id));
      return byId(id);
    },
    finish: async (id) => {
      await trainings.finish(byId(id));
      return byId(id);
    },
    sendWebhook: (id, o) => trainings.sendWebhook(id, o),
    webhooksSettled: () => trainings.settled(),
  };
}
