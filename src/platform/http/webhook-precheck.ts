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
    if (req.method !== 'POST') return next();
    const refusal = webhookHeadersRefusal(req.headers, (opts.now ?? Date.now)(), opts.toleranceSeconds);
    if (refusal === null) return next();
    logger.warn({ msg: 'webhook refused before its body was read', path: req.path, reason: refusal, webhook_id: String(req.headers['webhook-id'] ?? '').slice(0, 100) });
    res.setHeader('Connection', 'close');
    errors.reply(new AppError('unauthorized', 'The webhook signature could not be verified.'), req, res);
  };
}
