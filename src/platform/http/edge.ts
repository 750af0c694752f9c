import { NotFoundException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { AppExceptionFilter } from './exception.filter.js';

/** Every API route is under this prefix (contract §1); the docs and the socket sit beside it. */
export const API_PREFIX = 'api/v1';

/**
 * Every API answer defaults to `Cache-Control: no-store`: most carry a workspace's data, and a
 * shared cache must not keep them. A route whose answer may be cached (stored media) sets its own.
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * Mounted last, after Nest's routes: a path outside the API prefix (Express would answer its HTML
 * page) gets the contract's JSON 404 through the one exception filter.
 */
export function outsideApiNotFound(filter: AppExceptionFilter) {
  return (req: Request, res: Response): void => filter.reply(new NotFoundException(), req, res);
}
