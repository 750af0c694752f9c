import { AppError } from '../../../core/index.js';
import { AppearanceEmbedder } from '../application/ports/appearance-embedder.js';
import { EMBEDDING_DIMENSIONS, isEmbedding } from '../domain/embedding.js';

export interface HttpEmbedderOptions {
  url: string;
  apiKey?: string;
  model?: string;
  timeoutMs?: number;
  maxAttempts?: number;
  backoffMs?: number;
}

type FetchFn = typeof fetch;

/**
 * An embedding service over HTTP: POST `{image: <base64>, model?}`, answer `{embedding: number[512]}`.
 * Retries only what may pass on its own (5xx, 429), a bounded number of times.
 */
export class HttpAppearanceEmbedder extends AppearanceEmbedder {
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;

  constructor(
    private readonly opts: HttpEmbedderOptions,
    private readonly fetchFn: FetchFn = fetch,
  ) {
    super();
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.maxAttempts = opts.maxAttempts ?? 3;
    this.backoffMs = opts.backoffMs ?? 300;
  }

  async embed(image: Buffer): Promise<number[]> {
    const body = JSON.stringify({ image: image.toString('base64'), ...(this.opts.model ? { model: this.opts.model } : {}) });
    for (let attempt = 1; ; attempt++) {
      const res = await this.post(body);
      if (res.ok) return this.parse(res);
      const retryable = res.status >= 500 || res.status === 429;
      const detail = await res.text().catch(() => '');
      if (!retryable || attempt >= this.maxAttempts) {
        throw failure(`The embedding service answered ${res.status}${retryable ? ` after ${attempt} attempts` : ''}${detail ? `: ${detail.slice(0, 200)}` : ''}.`, res.status);
      }
      await sleep(this.delayFor(attempt, res.headers.get('retry-after')));
    }
  }

  private async post(body: string): Promise<Response> {
    try {
      return await this.fetchFn(this.opts.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...(this.opts.apiKey ? { Authorization: `Bearer ${this.opts.apiKey}` } : {}) },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw failure(`The embedding service did not answer within ${this.timeoutMs} ms.`);
      }
      throw failure(`The embedding service could not be reached: ${(err as Error)?.message ?? String(err)}.`);
    }
  }

  private async parse(res: Response): Promise<number[]> {
    let answer: unknown;
    try {
      answer = await res.json();
    } catch {
      throw failure('The embedding service answered with something that is not JSON.');
    }
    const embedding = (answer as { embedding?: unknown } | null)?.embedding;
    if (!isEmbedding(embedding)) {
      throw failure(`The embedding service answered without an embedding of ${EMBEDDING_DIMENSIONS} finite numbers.`);
    }
    return embedding;
  }

  private delayFor(attempt: number, retryAfter: string | null): number {
    const asked = retryAfter !== null ? Number(retryAfter) * 1000 : NaN;
    const backoff = this.backoffMs * 2 ** (attempt - 1);
    return Math.min(Number.isFinite(asked) && asked >= 0 ? asked : backoff, 5_000);
  }
}

function failure(message: string, status?: number): AppError {
  return new AppError('upstream_failed', message, { provider: 'embedding', ...(status !== undefined ? { status } : {}) });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
