import { createHmac, timingSafeEqual } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { AppError } from '../../../../core/index.js';
import { httpJson, type RetryOptions } from '../../../../platform/outbound/index.js';
import { TrainingWebhooks, type TrainingEvent } from '../../application/ports/training-webhooks.js';
import { fromOutbound, upstreamFailed } from '../../../generation/index.js';
import { parseTraining } from './replicate-trainer.js';

export interface ReplicateWebhooksOptions {
  baseUrl: string;
  token?: string;
  /** `whsec_…`; undefined: fetched once from `GET /v1/webhooks/default/secret`. */
  secret?: string;
  /** How far a delivery's timestamp may be from our clock, either way (Standard Webhooks: 5 minutes). */
  toleranceSeconds?: number;
  /** Our clock, in milliseconds since the epoch. */
  now?: () => number;
  timeoutMs?: number;
  retry?: RetryOptions;
}

const SIGNATURE_BYTES = 32; // HMAC-SHA256
const MAX_DELIVERY_ID = 256;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Replicate's training webhooks, signed per Standard Webhooks: HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}` with the account's `whsec_` secret, one or more
 * space-separated `v1,<base64>` signatures (several while a secret rotates).
 */
export class ReplicateTrainingWebhooks extends TrainingWebhooks {
  private readonly logger = new Logger('ReplicateTrainingWebhooks');
  private key: Promise<Buffer> | null = null;

  constructor(private readonly opts: ReplicateWebhooksOptions) {
    super();
  }

  async verify(headers: Headers, rawBody: Buffer): Promise<TrainingEvent> {
    const id = headerOf(headers, 'webhook-id');
    const timestamp = headerOf(headers, 'webhook-timestamp');
    const signatures = headerOf(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures || id.length > MAX_DELIVERY_ID) throw this.refuse('missing or malformed webhook headers');
    if (!/^\d{1,12}$/.test(timestamp)) throw this.refuse('unreadable timestamp');
    const now = (this.opts.now ?? Date.now)() / 1000;
    if (Math.abs(now - Number(timestamp)) > (this.opts.toleranceSeconds ?? 300)) throw this.refuse('timestamp outside the tolerance');
    const key = await this.signingKey();
    if (!signatureMatches(key, `${id}.${timestamp}.`, rawBody, signatures)) throw this.refuse('no signature matches');
    return { deliveryId: id, ...trainingOf(rawBody) };
  }

  private refuse(reason: string): AppError {
    this.logger.warn(`Refused a training webhook: ${reason}`);
    return new AppError('unauthorized', 'The webhook signature could not be verified.');
  }

  private signingKey(): Promise<Buffer> {
    if (!this.key) {
      const pending = this.loadKey();
      this.key = pending;
      // A failed fetch is not kept: the next delivery (Replicate retries) asks again.
      pending.catch(() => {
        if (this.key === pending) this.key = null;
      });
    }
    return this.key;
  }

  private async loadKey(): Promise<Buffer> {
    const secret = this.opts.secret ?? (await this.fetchSecret());
    const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
    if (key.length === 0) throw upstreamFailed('replicate', 'not_configured', 'The Replicate webhook secret is empty or not base64.');
    return key;
  }

  private async fetchSecret(): Promise<string> {
    if (!this.opts.token) throw upstreamFailed('replicate', 'not_configured', 'Replicate has no API token configured to fetch the webhook secret.');
    try {
      const res = await httpJson(`${this.opts.baseUrl}/v1/webhooks/default/secret`, {
        ...this.opts.retry,
        headers: { Authorization: `Bearer ${this.opts.token}` },
        timeoutMs: this.opts.timeoutMs ?? 30_000,
        maxBytes: 64 * 1024,
      });
      const key = (res.data as { key?: unknown } | null)?.key;
      if (typeof key !== 'string' || key === '') throw upstreamFailed('replicate', 'bad_response', 'Replicate answered the webhook secret request without a key.');
      return key;
    } catch (err) {
      throw fromOutbound('replicate', err, 'webhook secret request');
    }
  }
}

/** One value per header; a repeated header is as good as a missing one. */
function headerOf(headers: Headers, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  const single = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  return single?.trim() || undefined;
}

/** Any `v1` entry equal to our HMAC, compared in constant time. */
function signatureMatches(key: Buffer, prefix: string, body: Buffer, header: string): boolean {
  const expected = createHmac('sha256', key).update(prefix, 'utf8').update(body).digest();
  let matched = false;
  for (const entry of header.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const given = Buffer.from(signature, 'base64');
    if (given.length === SIGNATURE_BYTES && timingSafeEqual(given, expected)) matched = true;
  }
  return matched;
}

/** The body is read only once its signature holds. */
function trainingOf(rawBody: Buffer): Omit<TrainingEvent, 'deliveryId'> {
  try {
    const training = parseTraining(JSON.parse(rawBody.toString('utf8')));
    return { providerTrainingId: training.id, state: training.state };
  } catch {
    throw new AppError('validation_failed', 'The webhook body is not a Replicate training.');
  }
}
