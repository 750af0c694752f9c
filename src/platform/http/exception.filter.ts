import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError, type ErrorCode } from '../../core/index.js';
import { isOutageError, OUTAGE_RETRY_AFTER_S, outages } from '../health/outages.js';
import { loggablePath } from '../logging/path-redaction.js';
import type { ErrorStatusMap } from './error-status.js';

const STATUS_CODE: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/**
 * Turns anything thrown into the contract's error body. Never a stack, never SQL. The statuses come
 * from the map the application assembles out of every context's table.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HTTP');

  constructor(private readonly statuses: ErrorStatusMap) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    this.reply(exception, ctx.getRequest<Request>(), ctx.getResponse<Response>());
  }

  /** The error body for `exception`; also used by the fallback that answers paths outside the API. */
  reply(exception: unknown, req: Request, res: Response): void {
    const outage = !(exception instanceof AppError) && isOutageError(exception);
    const err = outage ? new AppError('service_unavailable', SERVICE_UNAVAILABLE) : this.toAppError(exception, req);
    // An outage is logged once, by the outage log, however many requests meet it.
    if (outage) outages.report(exception);
    if (err.code === 'internal_error') {
      this.logger.error({ msg: 'unhandled error', request_id: req.id, path: loggablePath(req), err: describe(exception) });
    }
    const status = this.statuses[err.code];
    // A refusal by something outside (a provider) says why in its cause: for the operator, not the client.
    if (status >= 500 && err.code !== 'internal_error' && err.cause !== undefined) {
      this.logger.warn({ msg: 'request refused: a dependency failed', request_id: req.id, path: loggablePath(req), code: err.code, cause: err.cause instanceof Error ? err.cause.message : typeof err.cause === 'string' ? err.cause : JSON.stringify(err.cause) });
    }
    if (res.headersSent) return;
    // Also for answers given before the API's no-store middleware ran (a body parser's 400 or 413).
    res.setHeader('Cache-Control', 'no-store');
    if (err.code === 'service_unavailable') res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_S));
    // A limit refused outside the throttler (a budget, the sign-in failures) says when in its details.
    if (err.code === 'rate_limited' && !res.getHeader('Retry-After')) {
      const retryAfter = retryAfterOf(err);
      if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    }
    res.status(status).json({
      statusCode: status,
      code: err.code,
      message: err.message,
      ...(err.details !== undefined ? { details: err.details } : {}),
      request_id: req.id,
    });
  }

  private toAppError(exception: unknown, req: Request): AppError {
    if (exception instanceof AppError) return exception;
    // Express hands body-parser's errors to Nest, which wraps a JSON syntax error in a 400
    // HttpException carrying the parser's text; the client gets a fixed sentence instead.
    const cause = exception instanceof HttpException ? exception.cause : exception;
    if ((cause as { type?: string } | undefined)?.type === 'entity.parse.failed') {
      return new AppError('validation_failed', INVALID_JSON);
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = STATUS_CODE[status];
      if (status === 404) return new AppError('not_found', `No route ${req.method} ${pathSent(req)}.`);
      if (code) return new AppError(code, messageOf(exception));
      return new AppError('internal_error', 'Something went wrong on our side.');
    }
    // body-parser and multer errors carry a status/type instead of being HttpExceptions
    const e = exception as { status?: number; type?: string; code?: string };
    if (e?.type === 'entity.too.large' || e?.code === 'LIMIT_FILE_SIZE') {
      return new AppError('payload_too_large', 'The request body is too large.');
    }
    if (e?.status && e.status >= 400 && e.status < 500 && STATUS_CODE[e.status]) {
      return new AppError(STATUS_CODE[e.status], 'The request could not be read.');
    }
    return new AppError('internal_error', 'Something went wrong on our side.');
  }
}

export const SERVICE_UNAVAILABLE = 'A service we depend on is briefly unavailable; try again shortly.';

export const INVALID_JSON = 'The request body is not valid JSON.';

/** The path as the client sent it, API prefix included, without the query string. */
function pathSent(req: Request): string {
  const url = req.originalUrl ?? req.url ?? req.path;
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

function messageOf(e: HttpException): string {
  const body = e.getResponse();
  if (typeof body === 'string') return body;
  const m = (body as { message?: unknown }).message;
  return Array.isArray(m) ? m.join('; ') : typeof m === 'string' ? m : e.message;
}

function describe(e: unknown): Record<string, unknown> {
  return e instanceof Error ? { name: e.name, message: e.message, stack: e.stack } : { value: String(e) };
}

/** `details.retry_after` of a rate-limit refusal, when it is a whole number of seconds. */
function retryAfterOf(err: AppError): number | undefined {
  const value = (err.details as { retry_after?: unknown } | undefined)?.retry_after;
  return Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined;
}
