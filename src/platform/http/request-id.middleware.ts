import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { ulid } from '../../core/index.js';

/** What code deep in a request may want to know without being handed it: the request id, for the audit log. */
interface RequestContext {
  requestId: string;
}

const context = new AsyncLocalStorage<RequestContext>();

/** The id of the HTTP request this code runs for; null in jobs and at boot. */
export function currentRequestId(): string | null {
  return context.getStore()?.requestId ?? null;
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/** Echoes a safe client `X-Request-Id` or makes one, on every response. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.header('x-request-id');
  req.id = given && SAFE_ID.test(given) ? given : `req_${ulid()}`;
  res.setHeader('X-Request-Id', req.id);
  context.run({ requestId: req.id }, next);
}
