import { Logger } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../../core/index.js';
import type { AppExceptionFilter } from './exception.filter.js';

/** Standard Webhooks: a delivery more than 5 minutes off our clock is refused, either way. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
const MAX_DELIVERY_ID = 256;

export interface WebhookPrecheckOptions {
  toleranceSeconds?: number;
  /** Our clock, in milliseconds since the epoch. */
  now?: () => number;
  /**
   * The signature scheme: Standard Webhooks headers (default), Stripe's `Stripe-Signature`, Meta's
   * `X-Hub-Signature-256` (`hub`) or X's `x-twitter-webhooks-signature` (`x`).
   */
  scheme?: 'standard' | 'stripe' | 'hub' | 'x';
  /** Paths under the mount (`req.path`) left to another precheck. */
  except?: readonly string[];
}

/**
 * Why a `Stripe-Signature` header (`t=<unix>,v1=<hex>[,…]`) cannot be valid, or null: a readable
 * timestamp within the tolerance and at least one v1 signature. The HMAC is the receiver's to check.
 */
export function stripeSignatureRefusal(headers: Request['headers'], nowMs: number, toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS): string | null {
  const header = headers['stripe-signature'];
  if (typeof header !== 'string' || header.trim() === '' || header.length > 2048) return 'missing or malformed Stripe-Signature';
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || !/^\d{1,12}$/.test(t)) return 'unreadable timestamp';
  if (Math.abs(nowMs / 1000 - Number(t)) > toleranceSeconds) return 'timestamp outside the tolerance';
  if (!parts.some(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? ''))) return 'no v1 signature';
  return null;
}

/** Why Meta's `X-Hub-Signature-256: sha256=<hex>` cannot be valid, or null (it carries no timestamp). */
export function hubSignatureRefusal(headers: Request['headers']): string | null {
  const header = headers['x-hub-signature-256'];
  return typeof header === 'string' && /^sha256=[0-9a-f]{64}$/i.test(header.trim()) ? null : 'missing or malformed X-Hub-Signature-256';
}

/** Why X's `x-twitter-webhooks-signature: sha256=<base64>` cannot be valid, or null (it carries no timestamp). */
export function xSignatureRefusal(headers: Request['headers']): string | null {
  const header = headers['x-twitter-webhooks-signature'];
  return typeof header === 'string' && /^sha256=[A-Za-z0-9+/]{43}=$/.test(header.trim()) ? null : 'missing or malformed x-twitter-webhooks-signature';
}

/**
 * Why a webhook delivery's Standard Webhooks headers cannot be valid, or null: all three present,
 * a delivery id of sane length, a timestamp within the tolerance, at least one `v1,` signature.
 * The signature itself is the receiving module's to check, over the body.
 */
export function webhookHeadersRefusal(headers: Request['headers'], nowMs: number, toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS): string | null {
  const one = (name: string) => {
    const v = headers[name];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
  };
  const id = one('webhook-id');
  const timestamp = one('webhook-timestamp');
  const signature = one('webhook-signature');
  if (!id || !timestamp || !signature) return 'missing webhook headers';
  if (id.length > MAX_DELIVERY_ID) return 'malformed webhook-id';
  if (!/^\d{1,12}$/.test(timestamp)) return 'unreadable timestamp';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > toleranceSeconds) return 'timestamp outside the tolerance';
  if (!signature.split(' ').some((s) => s.startsWith('v1,'))) return 'no v1 signature';
  return null;
}

/**
 * Mounted before the webhook routes' raw-body parser (up to 10 MiB): a delivery whose signature
 * headers are missing or stale is refused 401 before a byte of its body is read, and its
 * connection closed, so an unsigned sender cannot make us buffer large bodies.
 */
export function webhookPrecheck(errors: AppExceptionFilter, opts: WebhookPrecheckOptions = {}): RequestHandler {
  const logger = new Logger('Webhooks');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST' || opts.except?.some((p) => req.path === p || req.path.startsWith(`${p}/`))) return next();
    const check = { stripe: stripeSignatureRefusal, hub: hubSignatureRefusal, x: xSignatureRefusal, standard: webhookHeadersRefusal }[opts.scheme ?? 'standard'];
    const refusal = check(req.headers, (opts.now ?? Date.now)(), opts.toleranceSeconds);
    if (refusal === null) return next();
    logger.warn({ msg: 'webhook refused before its body was read', path: req.path, reason: refusal, webhook_id: String(req.headers['webhook-id'] ?? '').slice(0, 100) });
    res.setHeader('Connection', 'close');
    errors.reply(new AppError('unauthorized', 'The webhook signature could not be verified.'), req, res);
  };
}
