import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { pcm16Wav } from '../../src/platform/media/audio-type.js';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseMultipart } from './platforms/x.js';
import { readBody } from './read-body.js';

/**
 * ElevenLabs' API on 127.0.0.1, as far as the speech adapter uses it: `GET /v1/voices`,
 * `GET /v1/voices/{id}`, `DELETE /v1/voices/{id}` (the account's own voices), `POST /v1/voices/add` (multipart, parsed for real),
 * `POST /v1/text-to-speech/{id}[/with-timestamps]?output_format=` answering real audio (a
 * voiced tone, a bump of loudness per character, 15 characters a second; MP3 through the
 * bundled ffmpeg, PCM as is) and, with timestamps, the matching character alignment.
 * Every request wants `xi-api-key`; errors are `{detail: {status, message}}` as ElevenLabs sends them.
 */
export type ElevenLabsFailureKind = 'too_many_concurrent_requests' | 'system_busy' | 'quota_exceeded' | 'voice_not_found' | 'invalid_api_key' | 'service_unavailable' | 'malformed_audio';

export interface ElevenLabsRequestSeen {
  method: string;
  path: string;
  query: Record<string, string>;
  apiKey?: string;
  /** The parsed JSON body (text-to-speech: text, model_id, voice_settings). */
  body?: any;
  /** Multipart text fields (voices/add: name, description, labels). */
  fields?: Record<string, string>;
  files?: FakeUploadedFile[];
  /** The status the fake answered. */
  status?: number;
}

export interface FakeUploadedFile {
  filename?: string;
  contentType?: string;
  bytes: Buffer;
}

export interface FakeElevenLabsVoice {
  voice_id: string;
  name: string;
  category: string;
  labels: Record<string, string>;
  description: string | null;
  preview_url: string | null;
  /** What POST /v1/voices/add was sent for it. */
  files?: FakeUploadedFile[];
}

export interface FakeElevenLabsHold {
  /** Requests caught so far. */
  readonly held: number;
  /** Lets the held requests go on, and every later one. */
  release(): void;
}

export interface FakeElevenLabs {
  url: string;
  apiKey: string;
  requests: ElevenLabsRequestSeen[];
  voices: Map<string, FakeElevenLabsVoice>;
  /** The account's concurrency: text-to-speech beyond it answers 429 `too_many_concurrent_requests` (0: no limit). */
  options: { concurrencyLimit: number; latencyMs: number; voiceNotFoundStatus: 400 | 404 };
  /** Text-to-speech requests being worked on now, and the most there ever were at once. */
  readonly inFlight: number;
  readonly peakInFlight: number;
  /** The next `times` requests (text-to-speech, or those whose path contains `path`) fail with `kind`. */
  fail(kind: ElevenLabsFailureKind, opts?: { times?: number; path?: string; retryAfterSeconds?: number }): void;
  /** Holds requests whose path contains `pathPart`, counted as in flight, until released. */
  hold(pathPart: string): FakeElevenLabsHold;
  requestsTo(pathPart: string, method?: string): ElevenLabsRequestSeen[];
  /** Forgets requests, failures, holds and added voices; options back to their defaults. */
  reset(): void;
  close(): Promise<void>;
}

const STOCK_VOICES: FakeElevenLabsVoice[] = [
  { voice_id: 'JBFqnCBsd6RMkjVDRZzb', name: 'George', category: 'premade', labels: { accent: 'british', gender: 'male', age: 'middle_aged' }, description: null, preview_url: null },
  { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', category: 'premade', labels: { accent: 'american', gender: 'female', age: 'young' }, description: null, preview_url: null },
  { voice_id: 'EXAVITQu4vr4xnSDxMaL', name: 'Sarah', category: 'premade', labels: { accent: 'american', gender: 'female', age: 'young' }, description: null, preview_url: null },
];

const REFUSALS: Record<Exclude<ElevenLabsFailureKind, 'malformed_audio'>, { status: number; message: string }> = {
  too_many_concurrent_requests: { status: 429, message: 'You have too many concurrent requests in flight for your subscription.' },
  system_busy: { status: 429, message: 'Our services are experiencing high levels of traffic and your request could not be processed.' },
  quota_exceeded: { status: 401, message: 'This request exceeds your quota of 10000. You have 12 credits remaining, while 61 credits are required for this request.' },
  voice_not_found: { status: 404, message: 'A voice with the voice_id was not found.' },
  invalid_api_key: { status: 401, message: 'Invalid API key' },
  service_unavailable: { status: 503, message: 'Service temporarily unavailable.' },
};

const CHARACTERS_PER_SECOND = 15;

/** The text-to-speech models ElevenLabs lists (speech-to-speech models such as eleven_english_sts_v2 cannot speak text). */
export const TTS_MODELS: readonly unknown[] = ['eleven_v3', 'eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_flash_v2', 'eleven_turbo_v2_5', 'eleven_turbo_v2', 'eleven_multilingual_v1', 'eleven_monolingual_v1'];

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
  return status;
}

function refuse(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): number {
  return json(res, status, { detail: { status: code, message } }, headers);
}

/** What the fake "says": a character's loudness (vowels loudest, silence between words) as a bump over its slot. */
function loudness(ch: string): number {
  if (/[aeiouy]/i.test(ch)) return 1;
  if (/[\p{L}\p{N}]/u.test(ch)) return 0.45;
  return 0;
}

/** 16-bit mono PCM of the text at `rate`, and when each character is spoken. */
export function fakeSpeech(text: string, rate: number, pitchHz: number): { pcm: Buffer; starts: number[]; ends: number[] } {
  const chars = Array.from(text);
  const seconds = Math.max(0.3, chars.length / CHARACTERS_PER_SECOND);
  const slot = seconds / chars.length;
  const total = Math.round(seconds * rate);
  const pcm = Buffer.alloc(total * 2);
  for (let i = 0; i < total; i++) {
    const t = i / rate;
    const at = Math.min(chars.length - 1, Math.floor(t / slot));
    const within = t / slot - at;
    const envelope = loudness(chars[at]) * Math.sin(Math.PI * within);
    const tone = Math.sin(2 * Math.PI * pitchHz * t) + 0.3 * Math.sin(4 * Math.PI * pitchHz * t);
    pcm.writeInt16LE(Math.round(envelope * tone * 0.45 * 32767), i * 2);
  }
  const round = (s: number) => Math.round(s * 1000) / 1000;
  return { pcm, starts: chars.map((_, i) => round(i * slot)), ends: chars.map((_, i) => round((i + 1) * slot)) };
}

function wav(pcm: Buffer, rate: number): Buffer {
  return pcm16Wav(pcm, rate);
}

function encodeMp3(pcm: Buffer, rate: number, kbps: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg.path, ['-hide_banner', '-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0', '-codec:a', 'libmp3lame', '-b:a', `${kbps}k`, '-f', 'mp3', 'pipe:1']);
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stdin.on('error', () => undefined);
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`ffmpeg exited ${code}`))));
    child.stdin.end(wav(pcm, rate));
  });
}

type Encoded = { audio: Buffer; contentType: string; starts: number[]; ends: number[] };
/** Tests say the same text many times; an MP3 costs an ffmpeg run. */
const encodedCache = new Map<string, Promise<Encoded | null>>();

function encodedOnce(format: string, text: string, pitchHz: number): Promise<Encoded | null> {
  const key = `${format}|${pitchHz}|${text}`;
  let hit = encodedCache.get(key);
  if (!hit) {
    if (encodedCache.size > 200) encodedCache.clear();
    hit = encoded(format, text, pitchHz);
    encodedCache.set(key, hit);
    hit.catch(() => encodedCache.delete(key));
  }
  return hit;
}

/** The audio in an `output_format` (`mp3_<rate>_<kbps>` or `pcm_<rate>`); null for formats the fake does not speak. */
async function encoded(format: string, text: string, pitchHz: number): Promise<Encoded | null> {
  const mp3 = /^mp3_(22050|44100)_(32|64|96|128|192)$/.exec(format);
  const pcm = /^pcm_(16000|22050|24000|44100)$/.exec(format);
  if (!mp3 && !pcm) return null;
  const rate = Number((mp3 ?? pcm)![1]);
  const speech = fakeSpeech(text, rate, pitchHz);
  const audio = mp3 ? await encodeMp3(speech.pcm, rate, Number(mp3[2])) : speech.pcm;
  return { audio, contentType: mp3 ? 'audio/mpeg' : 'audio/pcm', starts: speech.starts, ends: speech.ends };
}

/** Audio by its leading bytes, as ElevenLabs checks uploads: WAV, MP3, OGG, FLAC, MP4/M4A, WebM. */
function looksLikeAudio(b: Buffer): boolean {
  const head = b.subarray(0, 12).toString('latin1');
  return head.startsWith('RIFF') || head.startsWith('ID3') || head.startsWith('OggS') || head.startsWith('fLaC') || head.slice(4, 8) === 'ftyp' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0) || b.readUInt32BE(0) === 0x1a45dfa3;
}

class ElevenLabsFake {
  readonly requests: ElevenLabsRequestSeen[] = [];
  readonly voices = new Map<string, FakeElevenLabsVoice>();
  readonly options = { concurrencyLimit: 0, latencyMs: 0, voiceNotFoundStatus: 404 as 400 | 404 };
  inFlight = 0;
  peakInFlight = 0;
  private failures: { kind: ElevenLabsFailureKind; times: number; path: string; retryAfterSeconds?: number }[] = [];
  private readonly holds = new Set<{ pathPart: string; held: number; gate: Promise<void>; open(): void }>();

  constructor(readonly apiKey: string) {
    this.reset();
  }

  reset(): void {
    this.requests.length = 0;
    this.failures = [];
    this.releaseHolds();
    this.voices.clear();
    for (const v of STOCK_VOICES) this.voices.set(v.voice_id, { ...v, labels: { ...v.labels } });
    Object.assign(this.options, { concurrencyLimit: 0, latencyMs: 0, voiceNotFoundStatus: 404 });
    this.peakInFlight = this.inFlight;
  }

  fail(kind: ElevenLabsFailureKind, opts: { times?: number; path?: string; retryAfterSeconds?: number } = {}): void {
    this.failures.push({ kind, times: opts.times ?? 1, path: opts.path ?? '/v1/text-to-speech/', retryAfterSeconds: opts.retryAfterSeconds });
  }

  hold(pathPart: string): FakeElevenLabsHold {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const hold = { pathPart, held: 0, gate, open };
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

  releaseHolds(): void {
    for (const hold of this.holds) hold.open();
    this.holds.clear();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const seen: ElevenLabsRequestSeen = { method: req.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), apiKey: header(req, 'xi-api-key') };
    this.requests.push(seen);
    if ((header(req, 'content-type') ?? '').startsWith('application/json')) {
      try {
        seen.body = JSON.parse(raw.toString('utf8'));
      } catch {
        seen.status = refuse(res, 400, 'invalid_json', 'The body is not JSON.');
        return;
      }
    }
    seen.status = await this.answer(req, res, seen, raw);
  }

  private async answer(req: IncomingMessage, res: ServerResponse, seen: ElevenLabsRequestSeen, raw: Buffer): Promise<number> {
    if (seen.apiKey !== this.apiKey) return refuse(res, 401, 'invalid_api_key', REFUSALS.invalid_api_key.message);
    const failure = this.failures.find((f) => f.times > 0 && seen.path.includes(f.path));
    if (failure) {
      failure.times--;
      if (failure.kind !== 'malformed_audio') return this.scripted(res, failure);
    }
    const tts = /^\/v1\/text-to-speech\/([^/]+)(\/with-timestamps)?$/.exec(seen.path);
    if (req.method === 'POST' && tts) return this.inFlightWhile(res, seen, () => this.speak(res, seen, decodeURIComponent(tts[1]), !!tts[2], failure?.kind === 'malformed_audio'));
    if (req.method === 'POST' && seen.path === '/v1/voices/add') return this.after(seen, () => this.addVoice(req, res, seen, raw));
    if (req.method === 'GET' && seen.path === '/v1/voices') return json(res, 200, { voices: [...this.voices.values()].map(({ files: _files, ...v }) => v) });
    const voice = /^\/v1\/voices\/([^/]+)$/.exec(seen.path);
    if (req.method === 'GET' && voice) {
      const found = this.voices.get(decodeURIComponent(voice[1]));
      if (!found) return this.voiceNotFound(res, decodeURIComponent(voice[1]));
      const { files: _files, ...shown } = found;
      return json(res, 200, shown);
    }
    if (req.method === 'DELETE' && voice) return this.deleteVoice(res, decodeURIComponent(voice[1]));
    return json(res, 404, { detail: 'Not Found' });
  }

  private scripted(res: ServerResponse, failure: { kind: ElevenLabsFailureKind; retryAfterSeconds?: number }): number {
    const refusal = REFUSALS[failure.kind as keyof typeof REFUSALS];
    const headers: Record<string, string> = failure.retryAfterSeconds !== undefined ? { 'Retry-After': String(failure.retryAfterSeconds) } : {};
    if (failure.kind === 'too_many_concurrent_requests') Object.assign(headers, this.concurrencyHeaders(Math.max(1, this.options.concurrencyLimit)));
    if (failure.kind === 'voice_not_found') return refuse(res, this.options.voiceNotFoundStatus, 'voice_not_found', refusal.message, headers);
    return refuse(res, refusal.status, failure.kind, refusal.message, headers);
  }

  private voiceNotFound(res: ServerResponse, voiceId: string): number {
    return refuse(res, this.options.voiceNotFoundStatus, 'voice_not_found', `A voice with the voice_id ${voiceId} was not found.`);
  }

  private concurrencyHeaders(current: number): Record<string, string> {
    return { 'current-concurrent-requests': String(current), 'maximum-concurrent-requests': String(this.options.concurrencyLimit || 10) };
  }

  /** Counts a text-to-speech request in flight while held, slowed and answered; beyond the limit it is refused. */
  private async inFlightWhile(res: ServerResponse, seen: ElevenLabsRequestSeen, work: () => Promise<number>): Promise<number> {
    if (this.options.concurrencyLimit > 0 && this.inFlight >= this.options.concurrencyLimit) {
      return refuse(res, 429, 'too_many_concurrent_requests', REFUSALS.too_many_concurrent_requests.message, this.concurrencyHeaders(this.inFlight));
    }
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    try {
      return await this.after(seen, work);
    } finally {
      this.inFlight--;
    }
  }

  private async after(seen: ElevenLabsRequestSeen, work: () => Promise<number>): Promise<number> {
    for (const hold of this.holds) {
      if (!seen.path.includes(hold.pathPart)) continue;
      hold.held++;
      await hold.gate;
    }
    if (this.options.latencyMs > 0) await new Promise((r) => setTimeout(r, this.options.latencyMs));
    return work();
  }

  private async speak(res: ServerResponse, seen: ElevenLabsRequestSeen, voiceId: string, timestamps: boolean, malformed: boolean): Promise<number> {
    if (!this.voices.has(voiceId)) return this.voiceNotFound(res, voiceId);
    if (seen.body === undefined) return json(res, 422, { detail: [{ loc: ['body'], msg: 'Field required: a JSON body', type: 'missing' }] });
    const body = seen.body;
    if (typeof body.text !== 'string' || body.text.trim() === '') return refuse(res, 400, 'invalid_text', 'The text must not be empty.');
    if (body.model_id !== undefined && !TTS_MODELS.includes(body.model_id)) return refuse(res, 400, 'model_not_found', `A model with model ID ${String(body.model_id)} does not exist or cannot do text-to-speech.`);
    const settings = body.voice_settings ?? {};
    for (const key of ['stability', 'similarity_boost', 'style']) {
      if (settings[key] !== undefined && !(typeof settings[key] === 'number' && settings[key] >= 0 && settings[key] <= 1)) {
        return json(res, 422, { detail: [{ loc: ['body', 'voice_settings', key], msg: 'Input should be between 0 and 1', type: 'value_error' }] });
      }
    }
    const format = seen.query.output_format ?? 'mp3_44100_128';
    const pitch = 110 + (createHash('sha256').update(voiceId).digest()[0] % 120);
    const speech = await encodedOnce(format, body.text, pitch);
    if (!speech) return refuse(res, 400, 'invalid_output_format', `The output format ${format} is not supported.`);
    const audio = malformed ? Buffer.from('<html>not audio</html>') : speech.audio;
    const headers = { 'request-id': randomBytes(8).toString('hex'), ...this.concurrencyHeaders(this.inFlight) };
    if (!timestamps) {
      res.writeHead(200, { 'Content-Type': speech.contentType, ...headers });
      res.end(audio);
      return 200;
    }
    const alignment = { characters: Array.from(body.text as string), character_start_times_seconds: speech.starts, character_end_times_seconds: speech.ends };
    return json(res, 200, { audio_base64: audio.toString('base64'), alignment, normalized_alignment: alignment }, headers);
  }

  /** The account's own voices can be deleted; the stock library cannot. */
  private deleteVoice(res: ServerResponse, voiceId: string): number {
    const found = this.voices.get(voiceId);
    if (!found) return this.voiceNotFound(res, voiceId);
    if (found.category === 'premade') return refuse(res, 400, 'voice_not_deletable', 'Premade voices cannot be deleted.');
    this.voices.delete(voiceId);
    return json(res, 200, { status: 'ok' });
  }

  private async addVoice(req: IncomingMessage, res: ServerResponse, seen: ElevenLabsRequestSeen, raw: Buffer): Promise<number> {
    const parts = parseMultipart(raw, header(req, 'content-type'));
    if (!parts) return json(res, 400, { detail: { status: 'invalid_request', message: 'Expected multipart/form-data.' } });
    seen.fields = Object.fromEntries(parts.filter((p) => p.filename === undefined).map((p) => [p.name, p.data.toString('utf8')]));
    seen.files = parts.filter((p) => p.name === 'files' && p.filename !== undefined).map((p) => ({ filename: p.filename, contentType: p.contentType, bytes: Buffer.from(p.data) }));
    const name = seen.fields.name?.trim();
    if (!name) return json(res, 422, { detail: [{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }] });
    if (seen.files.length === 0) return json(res, 422, { detail: [{ loc: ['body', 'files'], msg: 'Field required', type: 'missing' }] });
    if (seen.files.some((f) => !looksLikeAudio(f.bytes))) return refuse(res, 400, 'invalid_audio', 'One of the files is not audio.');
    const labels = labelsOf(seen.fields.labels);
    if (!labels) return refuse(res, 400, 'invalid_labels', 'labels must be a JSON object of strings.');
    const voiceId = randomBytes(15).toString('base64').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 20);
    this.voices.set(voiceId, { voice_id: voiceId, name, category: 'cloned', labels, description: seen.fields.description ?? null, preview_url: null, files: seen.files });
    return json(res, 200, { voice_id: voiceId, requires_verification: false });
  }
}

function labelsOf(field: string | undefined): Record<string, string> | null {
  if (field === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(field);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) return null;
    return parsed as Record<string, string>;
  } catch {
    return null;
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return value === undefined ? undefined : String(value);
}

export async function startFakeElevenLabs(opts: { apiKey?: string } = {}): Promise<FakeElevenLabs> {
  const fake = new ElevenLabsFake(opts.apiKey ?? `sk_${randomBytes(16).toString('hex')}`);
  const server: Server = createServer((req, res) => {
    fake.handle(req, res).catch((err: unknown) => json(res, 500, { detail: String(err) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: fake.apiKey,
    requests: fake.requests,
    voices: fake.voices,
    options: fake.options,
    get inFlight() {
      return fake.inFlight;
    },
    get peakInFlight() {
      return fake.peakInFlight;
    },
    fail: (kind, o) => fake.fail(kind, o),
    hold: (part) => fake.hold(part),
    requestsTo: (part, method) => fake.requests.filter((r) => r.path.includes(part) && (method === undefined || r.method === method)),
    reset: () => fake.reset(),
    close: () =>
      new Promise<void>((r) => {
        fake.releaseHolds();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
