import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { AppError } from '../../../../../core/index.js';
import { abortableSleep, httpRequest, isOutboundError, parseJson, retryDelay, type HttpResponse, type OutboundError, type RetryOptions } from '../../../../../platform/outbound/index.js';
import { fromOutbound, upstreamFailed } from '../shared/provider-failure.js';
import { Semaphore } from './semaphore.js';

export interface ElevenLabsOptions {
  /** `https://api.elevenlabs.io`, or a fake's URL. */
  baseUrl: string;
  apiKey?: string;
  /** Generation requests this process keeps in flight at once (at most the plan's concurrency). */
  concurrency: number;
  /** Budget of one request with no text; text-to-speech gets `perCharacterMs` more a character. */
  timeoutMs: number;
  perCharacterMs?: number;
  /** The most any one request may take, however long its text or upload. */
  maxTimeoutMs?: number;
  /** How long in all a request waits for the account's other requests (`too_many_concurrent_requests`). */
  concurrencyWaitMs?: number;
  /** Retries of `system_busy` (and of 503), with backoff. */
  busyRetries?: number;
  /** Largest audio answer accepted. */
  maxAudioBytes?: number;
  /** Backoff knobs; tests inject `sleep` and `random`. */
  retry?: RetryOptions;
}

/** A voice as GET /v1/voices and /v1/voices/{id} answer it (the fields we read). */
export interface ElevenLabsVoice {
  voice_id: string;
  name?: string;
  category?: string;
  labels?: Record<string, unknown> | null;
  preview_url?: string | null;
}

export interface ElevenLabsVoiceSettings {
  stability: number;
  similarity_boost: number;
  style: number;
  use_speaker_boost: boolean;
}

export interface TextToSpeechBody {
  text: string;
  model_id: string;
  voice_settings: ElevenLabsVoiceSettings;
}

/** The `/with-timestamps` answer: the audio, and when each character is spoken. */
export interface TimedSpeech {
  audio: Buffer;
  alignment: { characters: string[]; character_start_times_seconds: number[]; character_end_times_seconds: number[] } | null;
}

export interface VoiceUpload {
  name: string;
  description?: string;
  labels?: Record<string, string>;
  files: { bytes: Buffer; contentType: string; filename: string }[];
}

/** What a failed request's body said (`{detail: {status, message}}`), when it said it that way. */
interface Refusal {
  status?: string;
  message?: string;
}

const API_ANSWER_LIMIT = 4 * 1024 * 1024;
/** The API's ways of saying a voice id names nothing (older answers used the latter two). */
const NO_SUCH_VOICE = new Set(['voice_not_found', 'voice_does_not_exist', 'invalid_uid']);

/**
 * ElevenLabs' HTTP API (`xi-api-key`). Its 429s mean two opposite things, told apart by
 * `detail.status`: `too_many_concurrent_requests` (the account's other requests hold every slot:
 * wait, without adding load) and `system_busy` (their side is overloaded: back off, a few times).
 * Generation requests also queue behind a per-process cap, so one process alone never causes
 * the first. Text-to-speech is billed, so a request that may have reached them is not resent
 * blindly: only answers that say it was refused are retried.
 */
export class ElevenLabsClient {
  private readonly logger = new Logger('ElevenLabsClient');
  private readonly slots: Semaphore;

  constructor(private readonly opts: ElevenLabsOptions) {
    this.slots = new Semaphore(Math.max(1, Math.floor(opts.concurrency)));
  }

  async listVoices(signal?: AbortSignal): Promise<ElevenLabsVoice[]> {
    const res = await this.send('voice list', '/v1/voices', { method: 'GET', idempotent: true }, signal);
    const voices = parseJson<{ voices?: unknown }>(res.body, res.url).voices;
    if (!Array.isArray(voices)) throw upstreamFailed('elevenlabs', 'bad_response', 'ElevenLabs answered the voice list without voices.');
    return voices.filter((v): v is ElevenLabsVoice => typeof v?.voice_id === 'string' && v.voice_id !== '');
  }

  /** The voice, or null when ElevenLabs says there is no such voice. */
  async getVoice(voiceId: string, signal?: AbortSignal): Promise<ElevenLabsVoice | null> {
    try {
      const res = await this.send('voice lookup', `/v1/voices/${encodeURIComponent(voiceId)}`, { method: 'GET', idempotent: true }, signal, voiceId);
      return parseJson<ElevenLabsVoice>(res.body, res.url);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return null;
      throw err;
    }
  }

  /** Removes one of the account's voices (`DELETE /v1/voices/{id}`); one ElevenLabs no longer has is already removed. */
  async deleteVoice(voiceId: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.send('voice deletion', `/v1/voices/${encodeURIComponent(voiceId)}`, { method: 'DELETE', idempotent: true }, signal, voiceId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return;
      throw err;
    }
  }

  /** Instant voice cloning: the samples as repeated `files` parts. */
  async addVoice(upload: VoiceUpload, signal?: AbortSignal): Promise<{ voiceId: string }> {
    const { body, contentType } = multipart(upload);
    const timeoutMs = this.budget(this.opts.timeoutMs + Math.ceil(body.length / 100)); // ~100 kB/s of upload
    const res = await this.send('voice clone', '/v1/voices/add', { method: 'POST', headers: { 'Content-Type': contentType }, body, timeoutMs, limited: true }, signal);
    const answer = parseJson<{ voice_id?: unknown; requires_verification?: unknown }>(res.body, res.url);
    if (typeof answer.voice_id !== 'string' || answer.voice_id === '') throw upstreamFailed('elevenlabs', 'bad_response', 'ElevenLabs answered the voice clone without a voice_id.');
    if (answer.requires_verification === true) this.logger.warn(`Cloned voice ${answer.voice_id} requires verification before use.`);
    return { voiceId: answer.voice_id };
  }

  /** Speech and its character timings, in `outputFormat` (e.g. `mp3_44100_128`, `pcm_22050`). */
  async textToSpeech(voiceId: string, request: TextToSpeechBody, outputFormat: string, signal?: AbortSignal): Promise<TimedSpeech> {
    const path = `/v1/text-to-speech/${encodeURIComponent(voiceId)}/with-timestamps?output_format=${encodeURIComponent(outputFormat)}`;
    const maxBytes = Math.ceil(((this.opts.maxAudioBytes ?? 32 * 1024 * 1024) * 4) / 3) + API_ANSWER_LIMIT;
    const timeoutMs = this.budget(this.opts.timeoutMs + (this.opts.perCharacterMs ?? 50) * request.text.length);
    const init = { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request), timeoutMs, maxBytes, limited: true };
    const res = await this.send('text-to-speech', path, init, signal, voiceId);
    return timedSpeech(parseJson<Record<string, unknown>>(res.body, res.url));
  }

  private budget(ms: number): number {
    return Math.min(ms, this.opts.maxTimeoutMs ?? 300_000);
  }

  private async send(what: string, path: string, init: RequestInit, signal?: AbortSignal, voiceId?: string): Promise<HttpResponse> {
    if (!this.opts.apiKey) throw upstreamFailed('elevenlabs', 'not_configured', 'ElevenLabs has no API key configured.');
    const attempt = () => this.attempts(what, path, init, signal, voiceId);
    if (!init.limited) return attempt();
    try {
      return await this.slots.run(attempt, signal);
    } catch (err) {
      throw signal?.aborted && !(err instanceof AppError) ? upstreamFailed('elevenlabs', 'aborted', `The ${what} was cancelled.`) : err;
    }
  }

  /** One request, resent while ElevenLabs says it refused it for a passing reason. */
  private async attempts(what: string, path: string, init: RequestInit, signal?: AbortSignal, voiceId?: string): Promise<HttpResponse> {
    const sleep = this.opts.retry?.sleep ?? abortableSleep;
    let [busyTries, concurrencyTries, waitedMs] = [0, 0, 0];
    for (;;) {
      try {
        return await httpRequest(`${this.opts.baseUrl}${path}`, {
          method: init.method,
          headers: { Accept: 'application/json', ...init.headers, 'xi-api-key': this.opts.apiKey! },
          body: init.body,
          timeoutMs: init.timeoutMs ?? this.budget(this.opts.timeoutMs),
          maxBytes: init.maxBytes ?? API_ANSWER_LIMIT,
          retries: 0,
          signal,
        });
      } catch (err) {
        const refusal = refusalOf(err);
        let delay: number | null = null;
        if (refusal?.status === 'too_many_concurrent_requests' && waitedMs < (this.opts.concurrencyWaitMs ?? 60_000)) {
          delay = retryDelay(++concurrencyTries, { baseDelayMs: 500, maxDelayMs: 5_000, ...this.opts.retry }, (err as OutboundError).retryAfterMs);
        } else if (isBusy(err, refusal, init.idempotent) && busyTries < (this.opts.busyRetries ?? 3)) {
          delay = retryDelay(++busyTries, { baseDelayMs: 1_000, maxDelayMs: 10_000, ...this.opts.retry }, (err as OutboundError).retryAfterMs);
        }
        if (delay === null) throw failure(err, what, refusal, voiceId, { busyTries, concurrencyTries });
        this.logger.warn(`ElevenLabs ${what}: ${refusal?.status ?? (err as Error).message}; retrying in ${delay} ms`);
        waitedMs += delay;
        await sleep(delay, signal).catch(() => {
          throw upstreamFailed('elevenlabs', 'aborted', `The ${what} was cancelled.`);
        });
      }
    }
  }
}

interface RequestInit {
  method: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  maxBytes?: number;
  /** Safe to resend after a network error or any 5xx (a GET). */
  idempotent?: boolean;
  /** Takes one of the process's generation slots. */
  limited?: boolean;
}

function refusalOf(err: unknown): Refusal | null {
  if (!isOutboundError(err) || err.kind !== 'http' || !err.bodySnippet) return null;
  try {
    const detail = (JSON.parse(err.bodySnippet) as { detail?: unknown }).detail;
    if (detail && typeof detail === 'object' && !Array.isArray(detail)) {
      const { status, message } = detail as Record<string, unknown>;
      return { status: typeof status === 'string' ? status : undefined, message: typeof message === 'string' ? message : undefined };
    }
    return typeof detail === 'string' ? { message: detail } : {};
  } catch {
    return null;
  }
}

/** `system_busy`, a 503, and for a GET any 5xx or network failure: refused before any work was done. */
function isBusy(err: unknown, refusal: Refusal | null, idempotent?: boolean): boolean {
  if (refusal?.status === 'system_busy') return true;
  if (!isOutboundError(err)) return false;
  if (err.kind === 'http') return err.status === 503 || (!!idempotent && (err.status ?? 0) >= 500);
  return !!idempotent && err.kind === 'network';
}

function failure(err: unknown, what: string, refusal: Refusal | null, voiceId: string | undefined, tries: { busyTries: number; concurrencyTries: number }): Error {
  const status = isOutboundError(err) ? err.status : undefined;
  const said = refusal?.message ? `: ${refusal.message.slice(0, 300)}` : '.';
  const code = refusal?.status;
  if (voiceId !== undefined && refusal && ((code && NO_SUCH_VOICE.has(code)) || (status === 404 && !code))) {
    return new AppError('validation_failed', `ElevenLabs has no voice "${voiceId.slice(0, 80)}".`, [{ field: 'voice_id', message: 'unknown voice' }]);
  }
  if (code === 'quota_exceeded') return upstreamFailed('elevenlabs', 'quota_exceeded', `The ElevenLabs account has no character quota left for this ${what}${said}`, { status });
  if (code === 'too_many_concurrent_requests') {
    return upstreamFailed('elevenlabs', 'rate_limited', `ElevenLabs stayed at the account's concurrency limit for the ${what} after ${tries.concurrencyTries} waits.`, { status });
  }
  if (code === 'system_busy' || (tries.busyTries > 0 && isBusy(err, refusal, true))) {
    return upstreamFailed('elevenlabs', 'busy', `ElevenLabs was too busy for the ${what}, ${tries.busyTries + 1} attempts.`, { status });
  }
  if (status === 401 || status === 403) return upstreamFailed('elevenlabs', 'unauthorized', `ElevenLabs refused the API key for the ${what}${said}`, { status, elevenlabs_status: code });
  return fromOutbound('elevenlabs', err, what);
}

function timedSpeech(answer: Record<string, unknown>): TimedSpeech {
  if (typeof answer.audio_base64 !== 'string' || answer.audio_base64 === '') throw upstreamFailed('elevenlabs', 'bad_response', 'ElevenLabs answered without audio.');
  const audio = Buffer.from(answer.audio_base64, 'base64');
  const a = answer.alignment as Record<string, unknown> | null | undefined;
  const usable =
    a && Array.isArray(a.characters) && Array.isArray(a.character_start_times_seconds) && Array.isArray(a.character_end_times_seconds) &&
    a.characters.length === a.character_start_times_seconds.length && a.characters.length === a.character_end_times_seconds.length;
  return { audio, alignment: usable ? (a as unknown as TimedSpeech['alignment']) : null };
}

/** multipart/form-data (RFC 7578) by hand: four fields and the files, the way the API's SDKs send it. */
function multipart(upload: VoiceUpload): { body: Buffer; contentType: string } {
  const boundary = `----persona${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  const field = (name: string, value: string) => parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  field('name', upload.name);
  if (upload.description) field('description', upload.description);
  if (upload.labels && Object.keys(upload.labels).length > 0) field('labels', JSON.stringify(upload.labels));
  upload.files.forEach((file, i) => {
    const filename = safeFilename(file.filename, i);
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
  });
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A user's file name in a header: quotes and line breaks would end it early, so only plain characters stay. */
function safeFilename(name: string, index: number): string {
  const plain = name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80);
  return plain.replace(/^[._]+/, '') || `sample-${index + 1}`;
}
