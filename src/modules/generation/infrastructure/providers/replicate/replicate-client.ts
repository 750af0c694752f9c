import { Logger } from '@nestjs/common';
import { AppError } from '../../../../../core/index.js';
import { abortableSleep, httpJson, httpRequest, type RetryOptions } from '../../../../../platform/outbound/index.js';
import { fromDataUri, toDataUri } from '../shared/data-uri.js';
import { fromOutbound, upstreamFailed } from '../shared/provider-failure.js';
import { isTerminal, outputUrls, parsePrediction, type Prediction } from './prediction.js';

export interface ReplicateOptions {
  baseUrl: string;
  token?: string;
  /** Budget of one prediction, from creation to its terminal status; then it is cancelled. */
  timeoutMs: number;
  maxDownloadBytes: number;
  /** Seconds Replicate may hold the create request open (`Prefer: wait=N`, 1-60); 0 turns sync mode off. */
  waitSeconds?: number;
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Budget of each HTTP exchange (the create request gets `waitSeconds` on top). */
  requestTimeoutMs?: number;
  /** Files above this many bytes (default 256 KiB, Replicate's advice) go through the Files API, not data URIs. */
  inlineFileLimitBytes?: number;
  retry?: RetryOptions;
}

const API_ANSWER_LIMIT = 8 * 1024 * 1024;

/**
 * Replicate's predictions HTTP API: create (sync mode when allowed), poll with backoff until a
 * terminal status, cancel when we stop waiting, download the outputs under the size cap.
 */
export class ReplicateClient {
  private readonly logger = new Logger('ReplicateClient');

  constructor(private readonly opts: ReplicateOptions) {}

  /** Runs a model to completion; answers the succeeded prediction or throws upstream_failed. */
  async run(model: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<Prediction> {
    if (!this.opts.token) throw upstreamFailed('replicate', 'not_configured', 'Replicate has no API token configured.');
    const deadline = AbortSignal.timeout(this.opts.timeoutMs);
    const scope = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let prediction: Prediction | undefined;
    try {
      prediction = await this.create(model, input, scope);
      prediction = await this.untilTerminal(prediction, scope);
    } catch (err) {
      if (prediction && !isTerminal(prediction)) await this.cancel(prediction.id);
      throw this.failure(err, signal, deadline, prediction);
    }
    return succeeded(prediction);
  }

  private async create(model: string, input: Record<string, unknown>, scope: AbortSignal): Promise<Prediction> {
    // The create answer must come back before our deadline, or we never learn the id to cancel.
    const budgetSeconds = Math.floor(this.opts.timeoutMs / 1000) - 2;
    const wait = Math.min(60, this.opts.waitSeconds ?? 60, budgetSeconds);
    const [name, version] = model.split(':');
    // Official models run by name; a pinned version goes through the generic endpoint.
    const url = version ? `${this.opts.baseUrl}/v1/predictions` : `${this.opts.baseUrl}/v1/models/${modelPath(name)}/predictions`;
    const res = await httpJson(url, {
      ...this.opts.retry,
      method: 'POST',
      json: version ? { version: model, input } : { input },
      headers: {
        ...this.auth(),
        ...(wait >= 1 ? { Prefer: `wait=${wait}` } : {}),
        // Replicate's own deadline: the prediction stops even if we crash before cancelling it.
        'Cancel-After': `${Math.max(5, Math.ceil(this.opts.timeoutMs / 1000))}s`,
      },
      timeoutMs: this.requestTimeoutMs() + Math.max(0, wait) * 1000,
      maxBytes: API_ANSWER_LIMIT,
      signal: scope,
    });
    return parsePrediction(res.data);
  }

  private async untilTerminal(first: Prediction, scope: AbortSignal): Promise<Prediction> {
    let prediction = first;
    let interval = this.opts.pollIntervalMs ?? 1000;
    while (!isTerminal(prediction)) {
      await abortableSleep(interval, scope);
      prediction = await this.get(prediction.id, scope);
      interval = Math.min(interval * 1.5, this.opts.maxPollIntervalMs ?? 5000);
    }
    return prediction;
  }

  private async get(id: string, scope: AbortSignal): Promise<Prediction> {
    const res = await httpJson(`${this.opts.baseUrl}/v1/predictions/${encodeURIComponent(id)}`, {
      ...this.opts.retry,
      headers: this.auth(),
      timeoutMs: this.requestTimeoutMs(),
      maxBytes: API_ANSWER_LIMIT,
      signal: scope,
    });
    return parsePrediction(res.data);
  }

  /** Best effort: a prediction we no longer wait for should stop costing money. */
  private async cancel(id: string): Promise<void> {
    try {
      await httpRequest(`${this.opts.baseUrl}/v1/predictions/${encodeURIComponent(id)}/cancel`, {
        method: 'POST',
        headers: this.auth(),
        timeoutMs: Math.min(10_000, this.requestTimeoutMs()),
        retries: 1,
        sleep: this.opts.retry?.sleep,
      });
    } catch (err) {
      this.logger.warn(`Could not cancel prediction ${id}: ${(err as Error).message}`);
    }
  }

  /** Downloads every output file of a succeeded prediction, each under the size cap. */
  async downloadOutputs(prediction: Prediction, signal?: AbortSignal): Promise<Buffer[]> {
    const urls = outputUrls(prediction);
    return Promise.all(urls.map((url) => this.download(url, prediction.id, signal)));
  }

  private async download(url: string, predictionId: string, signal?: AbortSignal): Promise<Buffer> {
    const inline = url.startsWith('data:') ? fromDataUri(url) : null;
    if (inline) {
      if (inline.bytes.length > this.opts.maxDownloadBytes) throw upstreamFailed('replicate', 'too_large', 'Replicate sent an output larger than we accept.');
      return inline.bytes;
    }
    if (!/^https?:\/\//i.test(url)) throw upstreamFailed('replicate', 'bad_response', `Replicate prediction ${predictionId} has an output that is not a URL.`);
    try {
      const res = await httpRequest(url, { ...this.opts.retry, timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxDownloadBytes, signal });
      return res.body;
    } catch (err) {
      throw fromOutbound('replicate', err, 'output download');
    }
  }

  /**
   * A file as a model input: inline as a data URI when small, else uploaded through the Files
   * API (large data URIs are refused or slow) and passed by its URL.
   */
  async fileInput(file: { bytes: Buffer; contentType: string }, signal?: AbortSignal): Promise<string> {
    if (file.bytes.length <= (this.opts.inlineFileLimitBytes ?? 256 * 1024)) {
      return toDataUri(file);
    }
    if (!this.opts.token) throw upstreamFailed('replicate', 'not_configured', 'Replicate has no API token configured.');
    const boundary = `----persona${Date.now().toString(16)}`;
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="input"\r\nContent-Type: ${file.contentType}\r\n\r\n`;
    const body = Buffer.concat([Buffer.from(head), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    try {
      const res = await httpRequest(`${this.opts.baseUrl}/v1/files`, {
        ...this.opts.retry,
        method: 'POST',
        headers: { ...this.auth(), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body,
        timeoutMs: this.opts.timeoutMs,
        maxBytes: API_ANSWER_LIMIT,
        signal,
      });
      return uploadedUrl(res.body);
    } catch (err) {
      throw fromOutbound('replicate', err, 'file upload');
    }
  }

  private auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.opts.token}` };
  }

  private requestTimeoutMs(): number {
    return Math.min(this.opts.requestTimeoutMs ?? 30_000, this.opts.timeoutMs);
  }

  private failure(err: unknown, signal: AbortSignal | undefined, deadline: AbortSignal, prediction?: Prediction): Error {
    const extra = prediction ? { prediction_id: prediction.id } : {};
    if (signal?.aborted) return upstreamFailed('replicate', 'aborted', 'The Replicate prediction was cancelled.', extra);
    if (deadline.aborted) {
      return upstreamFailed('replicate', 'timeout', `Replicate did not finish within ${Math.round(this.opts.timeoutMs / 1000)} s; the prediction was cancelled.`, extra);
    }
    return err instanceof AppError ? err : fromOutbound('replicate', err, 'prediction');
  }
}

function modelPath(name: string): string {
  const [owner, model] = name.split('/');
  if (!owner || !model) throw upstreamFailed('replicate', 'not_configured', `The Replicate model "${name}" is not owner/name.`);
  return `${encodeURIComponent(owner)}/${encodeURIComponent(model)}`;
}

function succeeded(p: Prediction): Prediction {
  if (p.status === 'succeeded') return p;
  if (p.status === 'failed') {
    throw upstreamFailed('replicate', 'prediction_failed', `Replicate prediction failed: ${p.error ?? 'no reason given'}`, { prediction_id: p.id, error: p.error });
  }
  throw upstreamFailed('replicate', 'prediction_canceled', `Replicate prediction ${p.id} was ${p.status}.`, { prediction_id: p.id });
}

function uploadedUrl(body: Buffer): string {
  let parsed: { urls?: { get?: unknown } };
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw upstreamFailed('replicate', 'bad_response', 'Replicate answered a file upload with something that is not JSON.');
  }
  const url = parsed?.urls?.get;
  if (typeof url !== 'string' || url === '') throw upstreamFailed('replicate', 'bad_response', 'Replicate answered a file upload without its URL.');
  return url;
}
