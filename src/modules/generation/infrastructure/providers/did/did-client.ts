import { randomBytes } from 'node:crypto';
import { AppError } from '../../../../../core/index.js';
import { abortableSleep, httpJson, httpRequest, parseJson, type RetryOptions } from '../../../../../platform/outbound/index.js';
import { fromOutbound, upstreamFailed } from '../shared/provider-failure.js';

export interface DidOptions {
  /** `https://api.d-id.com`, or a fake's origin. */
  baseUrl: string;
  /**
   * The API key exactly as D-ID Studio shows it: `<username>:<password>`, the username part already
   * base64. D-ID's docs send it verbatim after `Basic ` (it is not encoded again).
   */
  apiKey?: string;
  /** Budget of one talk, from the first upload to the downloaded video. D-ID has no cancel: we stop waiting. */
  timeoutMs: number;
  maxDownloadBytes: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Budget of each API exchange (uploads included). */
  requestTimeoutMs?: number;
  retry?: RetryOptions;
  /** The wait between polls; injected by tests to see the backoff. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const TALK_STATUSES = ['created', 'started', 'done', 'error', 'rejected'] as const;
export type TalkStatus = (typeof TALK_STATUSES)[number];

export interface Talk {
  id: string;
  status: TalkStatus;
  resultUrl?: string;
  /** D-ID's own `{kind, description}` when the talk failed. */
  error?: { kind?: string; description?: string };
}

export interface UploadFile {
  bytes: Buffer;
  contentType: string;
  /** D-ID keeps up to 50 of [a-zA-Z0-9._-]. */
  filename: string;
}

/** Where a talk is, for progress: the status, and how many polls it has spent in it. */
export type TalkProgress = (talk: Talk, pollsInStatus: number) => void;

const API_ANSWER_LIMIT = 1024 * 1024;

/**
 * D-ID's talks API: the image and the speech uploaded (`POST /images`, `POST /audios`), a talk
 * created from their URLs (`POST /talks`, `script.type: "audio"`), polled with backoff through
 * created → started → done | error | rejected, and its `result_url` downloaded under the size cap.
 */
export class DidClient {
  constructor(private readonly opts: DidOptions) {}

  /** Makes one talk to its end; answers the done talk and its video, or throws upstream_failed. */
  async talk(image: UploadFile, audio: UploadFile, signal?: AbortSignal, onProgress?: TalkProgress): Promise<{ talk: Talk; video: Buffer }> {
    if (!this.opts.apiKey) throw upstreamFailed('d-id', 'not_configured', 'D-ID has no API key configured.');
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const scope = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let talk: Talk | undefined;
    try {
      const [sourceUrl, audioUrl] = await Promise.all([this.upload('/images', 'image', image, scope), this.upload('/audios', 'audio', audio, scope)]);
      talk = await this.createTalk(sourceUrl, audioUrl, scope);
      talk = await this.untilEnded(talk, scope, onProgress);
      return { talk, video: await this.download(finished(talk), scope) };
    } catch (err) {
      throw this.failure(err, signal, deadline, talk);
    }
  }

  private async upload(path: string, field: string, file: UploadFile, scope: AbortSignal): Promise<string> {
    const form = multipart(field, file);
    const res = await this.call(`upload to ${path}`, () =>
      httpRequest(`${this.opts.baseUrl}${path}`, {
        ...this.opts.retry,
        method: 'POST',
        headers: { ...this.auth(), Accept: 'application/json', 'Content-Type': form.contentType },
        body: form.body,
        timeoutMs: this.requestTimeoutMs(),
        maxBytes: API_ANSWER_LIMIT,
        signal: scope,
      }),
    );
    const url = parseJson<{ url?: unknown } | null>(res.body, path)?.url;
    if (typeof url !== 'string' || url === '') throw upstreamFailed('d-id', 'bad_response', `D-ID answered the upload to ${path} without a URL.`);
    return url;
  }

  private async createTalk(sourceUrl: string, audioUrl: string, scope: AbortSignal): Promise<Talk> {
    // stitch: the whole picture moves, not a square crop around the face, so the aspect ratio we chose survives.
    const json = { source_url: sourceUrl, script: { type: 'audio', audio_url: audioUrl }, config: { stitch: true, result_format: 'mp4' } };
    const res = await this.call('talk creation', () =>
      httpJson(`${this.opts.baseUrl}/talks`, { ...this.opts.retry, method: 'POST', json, headers: this.auth(), timeoutMs: this.requestTimeoutMs(), maxBytes: API_ANSWER_LIMIT, signal: scope }),
    );
    return parseTalk(res.data);
  }

  private async getTalk(id: string, scope: AbortSignal): Promise<Talk> {
    const res = await this.call('talk status', () =>
      httpJson(`${this.opts.baseUrl}/talks/${encodeURIComponent(id)}`, { ...this.opts.retry, headers: this.auth(), timeoutMs: this.requestTimeoutMs(), maxBytes: API_ANSWER_LIMIT, signal: scope }),
    );
    return parseTalk(res.data);
  }

  private async untilEnded(first: Talk, scope: AbortSignal, onProgress?: TalkProgress): Promise<Talk> {
    let talk = first;
    let interval = this.opts.pollIntervalMs ?? 1000;
    let polls = 0;
    onProgress?.(talk, polls);
    while (talk.status === 'created' || talk.status === 'started') {
      await (this.opts.sleep ?? abortableSleep)(interval, scope);
      const next = await this.getTalk(talk.id, scope);
      polls = next.status === talk.status ? polls + 1 : 0;
      talk = next;
      onProgress?.(talk, polls);
      interval = Math.min(interval * 1.5, this.opts.maxPollIntervalMs ?? 5000);
    }
    return talk;
  }

  /** The result is a pre-signed storage URL: it carries its own credentials, so ours are not sent. */
  private async download(url: string, scope: AbortSignal): Promise<Buffer> {
    if (!/^https?:\/\//i.test(url)) throw upstreamFailed('d-id', 'bad_response', 'D-ID gave a result_url that is not an http(s) URL.');
    const res = await this.call('video download', () => httpRequest(url, { ...this.opts.retry, timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxDownloadBytes, signal: scope }));
    return res.body;
  }

  private async call<T>(what: string, exchange: () => Promise<T>): Promise<T> {
    try {
      return await exchange();
    } catch (err) {
      throw fromOutbound('d-id', err, what);
    }
  }

  private auth(): Record<string, string> {
    return { Authorization: `Basic ${this.opts.apiKey}` };
  }

  private requestTimeoutMs(): number {
    return Math.min(this.opts.requestTimeoutMs ?? 60_000, this.opts.timeoutMs);
  }

  private failure(err: unknown, signal: AbortSignal | undefined, deadline: AbortSignal, talk?: Talk): Error {
    const extra = talk ? { talk_id: talk.id } : {};
    if (signal?.aborted) return upstreamFailed('d-id', 'aborted', 'The D-ID talk was cancelled; D-ID cannot stop it, so it may still finish on its side.', extra);
    if (deadline.aborted) {
      return upstreamFailed('d-id', 'timeout', `D-ID did not finish the talk within ${Math.round(this.opts.timeoutMs / 1000)} s; D-ID cannot cancel it, so we stopped waiting.`, extra);
    }
    return err instanceof AppError ? err : fromOutbound('d-id', err, 'talk');
  }
}

/** The result URL of a talk that ended; error and rejected talks fail with D-ID's own reason. */
function finished(talk: Talk): string {
  const said = talk.error?.description ?? talk.error?.kind ?? 'no reason given';
  const extra = { talk_id: talk.id, ...(talk.error?.kind ? { kind: talk.error.kind } : {}) };
  if (talk.status === 'rejected') throw upstreamFailed('d-id', 'talk_rejected', `D-ID rejected the talk: ${said}`, extra);
  if (talk.status === 'error') throw upstreamFailed('d-id', 'talk_failed', `D-ID could not make the talk: ${said}`, extra);
  if (!talk.resultUrl) throw upstreamFailed('d-id', 'bad_response', `D-ID finished talk ${talk.id} without a result_url.`, extra);
  return talk.resultUrl;
}

function parseTalk(data: unknown): Talk {
  const raw = (data ?? {}) as { id?: unknown; status?: unknown; result_url?: unknown; error?: unknown };
  const status = TALK_STATUSES.find((s) => s === raw.status);
  if (typeof raw.id !== 'string' || raw.id === '' || !status) throw upstreamFailed('d-id', 'bad_response', 'D-ID answered with a talk we cannot read (no id or an unknown status).');
  const talk: Talk = { id: raw.id, status };
  if (typeof raw.result_url === 'string') talk.resultUrl = raw.result_url;
  if (raw.error && typeof raw.error === 'object') {
    const { kind, description } = raw.error as { kind?: unknown; description?: unknown };
    talk.error = { kind: typeof kind === 'string' ? kind : undefined, description: typeof description === 'string' ? description : undefined };
  } else if (typeof raw.error === 'string') {
    talk.error = { description: raw.error };
  }
  return talk;
}

/** A multipart/form-data body of one file part. */
function multipart(field: string, file: UploadFile): { body: Buffer; contentType: string } {
  const boundary = `----persona${randomBytes(12).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}
